"""The virtual device's uiautomator2 server (what `u2.jar` runs on a phone): HTTP + JSON-RPC over `tcp:9008`.

Entry point: `emulator.virtual.u2server.serve_until_closed(model, io, port)`, called by the mini shell for
`CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p PORT`.

Modules: `http` (HTTP/1.1 requests one after another on a kept-alive adb stream), `rpc` (the JSON-RPC
methods), `selector` (UiSelector matching on the model's view tree).
"""
