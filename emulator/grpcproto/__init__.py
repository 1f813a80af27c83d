"""The Android Emulator's gRPC protocol, shared by the virtual device's server (`emulator.virtual.grpc`) and the
harness's client (`harness.device.grpc_link`): the messages (`messages`: descriptors built field by field, protobuf
only) and the discovery file a running emulator writes for itself (`discovery`). Neither imports grpc."""
