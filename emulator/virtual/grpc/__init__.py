"""The Android Emulator's gRPC door on the virtual device (`EmulatorController`, `SnapshotService`); its messages
and the discovery file it writes are `emulator.grpcproto`'s (shared with the harness's client). `server` is the
only module that imports grpc, and nothing imports it unless a device is started with a gRPC port
(`VirtualDevice(..., grpc_port=...)`, `--grpc PORT`)."""
