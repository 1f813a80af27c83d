"""The `droidharness` command line: the composition root, the one place that may import every package."""
