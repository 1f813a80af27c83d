"""The Android Emulator's gRPC door on the virtual device (`EmulatorController`, `SnapshotService`) and the
discovery file an emulator writes for itself. `server` is the only module that imports grpc, and nothing imports
it unless a device is started with a gRPC port (`VirtualDevice(..., grpc_port=...)`, `--grpc PORT`)."""
