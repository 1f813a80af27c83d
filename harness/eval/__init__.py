"""Datasets against their official metrics: the metrics (metrics/), offline teacher-forced evaluation
(offline), and replaying recorded episodes on live devices (replay).
"""
