"""The device layer: the `Device` protocol and `AdbDevice` (controller), the `DeviceLink` seam (link: adb +
uiautomator2 with THE reconnect wrapper; inprocess: the virtual device's model in this process), fast adb
paths, the capture chains, settling, actuation and app launching. Knows nothing of agents or tasks.
"""
