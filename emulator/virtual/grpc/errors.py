"""The error a gRPC method of the virtual device answers with: a status code's name and its details (the server
turns it into that status; the methods themselves import nothing of grpc)."""

from __future__ import annotations


class RpcError(Exception):
    def __init__(self, code: str, details: str) -> None:
        super().__init__(f"{code}: {details}")
        self.code, self.details = code, details


def unimplemented(service: str, method: str) -> RpcError:
    return RpcError("UNIMPLEMENTED", f"{service}.{method} is not modelled by the virtual device")
