"""A small, standard-conforming MP4 writer for `screenrecord`: H.264 Baseline with every macroblock coded as I_PCM
(raw 8-bit YUV 4:2:0 samples, no prediction and no transform, so no encoder is needed), each frame one IDR
picture, muxed into an ISO BMFF file (ftyp, moov with one avc1 video track, mdat). Players and ffmpeg decode it;
it is large (1.5 bytes per pixel per frame), which is why recordings keep few frames.

H.264 syntax used (ITU-T H.264 7.3): SPS (profile 66, frame cropping to the display size), PPS (CAVLC), IDR slices
with mb_type 25 (I_PCM) + pcm_alignment_zero_bits + 384 samples per macroblock; emulation prevention bytes are
inserted over whole NAL payloads.
"""

from __future__ import annotations

import re
import struct

import numpy as np

__all__ = ["encode_mp4", "parse_boxes", "sps_size", "unescape"]

PROFILE_BASELINE = 66
CONSTRAINTS = 0xC0  # constraint_set0 and set1: constrained baseline


class _Bits:
    def __init__(self) -> None:
        self.bits: list[int] = []

    def u(self, n: int, v: int) -> None:
        self.bits += [(v >> (n - 1 - i)) & 1 for i in range(n)]

    def ue(self, v: int) -> None:
        v += 1
        n = v.bit_length()
        self.bits += [0] * (n - 1)
        self.u(n, v)

    def se(self, v: int) -> None:
        self.ue(2 * v - 1 if v > 0 else -2 * v)

    def trailing(self) -> None:
        self.bits.append(1)
        self.align()

    def align(self) -> None:
        while len(self.bits) % 8:
            self.bits.append(0)

    def bytes(self) -> bytes:
        assert len(self.bits) % 8 == 0
        return bytes(int("".join(map(str, self.bits[i : i + 8])), 2) for i in range(0, len(self.bits), 8))


def _escape(rbsp: bytes) -> bytes:
    """Emulation prevention: 00 00 0x (x <= 3) inside a NAL unit becomes 00 00 03 0x."""
    return re.sub(rb"\x00\x00(?=[\x00-\x03])", b"\x00\x00\x03", rbsp)


def unescape(nal: bytes) -> bytes:
    return re.sub(rb"\x00\x00\x03(?=[\x00-\x03])", b"\x00\x00", nal)


def _level(mbs: int) -> int:
    for level, max_fs in ((30, 1620), (31, 3600), (32, 5120), (40, 8192), (42, 8704), (50, 22080), (51, 36864)):
        if mbs <= max_fs:
            return level
    return 52


def _sps(w_mbs: int, h_mbs: int, crop_r: int, crop_b: int) -> bytes:
    b = _Bits()
    b.u(8, PROFILE_BASELINE)
    b.u(8, CONSTRAINTS)
    b.u(8, _level(w_mbs * h_mbs))
    b.ue(0)  # seq_parameter_set_id
    b.ue(0)  # log2_max_frame_num_minus4
    b.ue(2)  # pic_order_cnt_type 2: output order = decoding order
    b.ue(0)  # max_num_ref_frames
    b.u(1, 0)  # gaps_in_frame_num_value_allowed_flag
    b.ue(w_mbs - 1)
    b.ue(h_mbs - 1)
    b.u(1, 1)  # frame_mbs_only_flag
    b.u(1, 1)  # direct_8x8_inference_flag
    crop = crop_r or crop_b
    b.u(1, 1 if crop else 0)
    if crop:  # in units of 2 luma samples (4:2:0, frames)
        b.ue(0)
        b.ue(crop_r // 2)
        b.ue(0)
        b.ue(crop_b // 2)
    b.u(1, 0)  # vui_parameters_present_flag
    b.trailing()
    return b"\x67" + _escape(b.bytes())


def _pps() -> bytes:
    b = _Bits()
    b.ue(0)  # pic_parameter_set_id
    b.ue(0)  # seq_parameter_set_id
    b.u(1, 0)  # entropy_coding_mode_flag: CAVLC
    b.u(1, 0)  # bottom_field_pic_order_in_frame_present_flag
    b.ue(0)  # num_slice_groups_minus1
    b.ue(0)
    b.ue(0)  # num_ref_idx_l0/l1_default_active_minus1
    b.u(1, 0)
    b.u(2, 0)  # weighted_pred_flag, weighted_bipred_idc
    b.se(0)
    b.se(0)
    b.se(0)  # pic_init_qp/qs_minus26, chroma_qp_index_offset
    b.u(1, 0)  # deblocking_filter_control_present_flag
    b.u(1, 0)  # constrained_intra_pred_flag
    b.u(1, 0)  # redundant_pic_cnt_present_flag
    b.trailing()
    return b"\x68" + _escape(b.bytes())


def _yuv420(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BT.601 limited range, chroma averaged over 2x2."""
    r, g, b = (rgb[..., i].astype(np.float32) for i in range(3))
    y = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255
    cb = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255
    cr = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255

    def sub(c: np.ndarray) -> np.ndarray:
        return (c[0::2, 0::2] + c[1::2, 0::2] + c[0::2, 1::2] + c[1::2, 1::2]) / 4

    def q(c: np.ndarray) -> np.ndarray:
        return np.clip(np.rint(c), 0, 255).astype(np.uint8)

    return q(y), q(sub(cb)), q(sub(cr))


def _idr_slice(rgb: np.ndarray, idr_id: int) -> bytes:
    h, w = rgb.shape[:2]
    y, cb, cr = _yuv420(rgb)
    hm, wm = h // 16, w // 16
    ymb = y.reshape(hm, 16, wm, 16).transpose(0, 2, 1, 3).reshape(hm * wm, 256)
    cbm = cb.reshape(hm, 8, wm, 8).transpose(0, 2, 1, 3).reshape(hm * wm, 64)
    crm = cr.reshape(hm, 8, wm, 8).transpose(0, 2, 1, 3).reshape(hm * wm, 64)
    prefix = np.tile(np.array([0x0D, 0x00], dtype=np.uint8), (hm * wm, 1))  # ue(25) + alignment zeros
    mbs = np.concatenate([prefix, ymb, cbm, crm], axis=1)
    head = _Bits()
    head.ue(0)  # first_mb_in_slice
    head.ue(7)  # slice_type: I (all slices of the picture)
    head.ue(0)  # pic_parameter_set_id
    head.u(4, 0)  # frame_num
    head.ue(idr_id % 65536)  # idr_pic_id
    head.u(1, 0)
    head.u(1, 0)  # dec_ref_pic_marking: no_output_of_prior_pics, long_term_reference
    head.se(0)  # slice_qp_delta
    head.ue(25)  # first macroblock: I_PCM
    head.align()  # pcm_alignment_zero_bits
    body = head.bytes() + mbs.tobytes()[2:] + b"\x80"  # rbsp_slice_trailing_bits
    return b"\x65" + _escape(body)


def _box(kind: bytes, *payload: bytes) -> bytes:
    data = b"".join(payload)
    return struct.pack(">I", 8 + len(data)) + kind + data


def _full(kind: bytes, version: int, flags: int, *payload: bytes) -> bytes:
    return _box(kind, struct.pack(">I", (version << 24) | flags), *payload)


_MATRIX = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)


def encode_mp4(frames: list[tuple[np.ndarray, float]], width: int, height: int) -> bytes:
    """frames: (RGB array height x width x 3, seconds since the start). Returns the MP4 file's bytes."""
    assert frames, "at least one frame"
    pw, ph = (width + 15) // 16 * 16, (height + 15) // 16 * 16
    sps, pps = _sps(pw // 16, ph // 16, pw - width, ph - height), _pps()
    samples = []
    for i, (rgb, _) in enumerate(frames):
        padded = np.zeros((ph, pw, 3), dtype=np.uint8)
        padded[:height, :width] = rgb[:height, :width, :3]
        nal = _idr_slice(padded, i)
        samples.append(struct.pack(">I", len(nal)) + nal)
    timescale = 90000
    times = [int(t * timescale) for _, t in frames]
    deltas = [max(1, times[k + 1] - times[k]) for k in range(len(times) - 1)] + [timescale // 30]
    duration = sum(deltas)
    movie_ms = duration * 1000 // timescale

    avcc = _box(
        b"avcC",
        bytes([1, PROFILE_BASELINE, CONSTRAINTS, sps[3], 0xFF, 0xE1]),
        struct.pack(">H", len(sps)),
        sps,
        bytes([1]),
        struct.pack(">H", len(pps)),
        pps,
    )
    avc1 = _box(
        b"avc1",
        bytes(6),
        struct.pack(">H", 1),
        bytes(16),
        struct.pack(">HH", width, height),
        struct.pack(">II", 0x480000, 0x480000),
        bytes(4),
        struct.pack(">H", 1),
        bytes([12]) + b"screenrecord".ljust(31, b"\0"),
        struct.pack(">Hh", 0x18, -1),
        avcc,
    )
    stts_runs: list[list[int]] = []
    for d in deltas:
        if stts_runs and stts_runs[-1][1] == d:
            stts_runs[-1][0] += 1
        else:
            stts_runs.append([1, d])

    def moov(chunk_offset: int) -> bytes:
        stbl = _box(
            b"stbl",
            _full(b"stsd", 0, 0, struct.pack(">I", 1), avc1),
            _full(
                b"stts",
                0,
                0,
                struct.pack(">I", len(stts_runs)),
                b"".join(struct.pack(">II", n, d) for n, d in stts_runs),
            ),
            _full(
                b"stss",
                0,
                0,
                struct.pack(">I", len(samples)),
                b"".join(struct.pack(">I", k + 1) for k in range(len(samples))),
            ),
            _full(b"stsc", 0, 0, struct.pack(">IIII", 1, 1, len(samples), 1)),
            _full(
                b"stsz", 0, 0, struct.pack(">II", 0, len(samples)), b"".join(struct.pack(">I", len(s)) for s in samples)
            ),
            _full(b"stco", 0, 0, struct.pack(">II", 1, chunk_offset)),
        )
        minf = _box(
            b"minf",
            _full(b"vmhd", 0, 1, bytes(8)),
            _box(b"dinf", _full(b"dref", 0, 0, struct.pack(">I", 1), _full(b"url ", 0, 1))),
            stbl,
        )
        mdia = _box(
            b"mdia",
            _full(b"mdhd", 0, 0, struct.pack(">IIIIHH", 0, 0, timescale, duration, 0x55C4, 0)),
            _full(b"hdlr", 0, 0, bytes(4), b"vide", bytes(12), b"VideoHandle\0"),
            minf,
        )
        tkhd = _full(
            b"tkhd",
            0,
            3,
            struct.pack(">IIIII", 0, 0, 1, 0, movie_ms),
            bytes(8),
            struct.pack(">hhhH", 0, 0, 0, 0),
            _MATRIX,
            struct.pack(">II", width << 16, height << 16),
        )
        mvhd = _full(
            b"mvhd",
            0,
            0,
            struct.pack(">IIII", 0, 0, 1000, movie_ms),
            struct.pack(">IH", 0x10000, 0x100),
            bytes(10),
            _MATRIX,
            bytes(24),
            struct.pack(">I", 2),
        )
        return _box(b"moov", mvhd, _box(b"trak", tkhd, mdia))

    ftyp = _box(b"ftyp", b"isom", struct.pack(">I", 512), b"isom", b"iso2", b"avc1", b"mp41")
    size = len(moov(0))
    return ftyp + moov(len(ftyp) + size + 8) + _box(b"mdat", *samples)


# --- reading back (tests, sanity checks) ------------------------------------------------------------------------
_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"dinf"}


def parse_boxes(data: bytes, start: int = 0, end: int | None = None) -> list[tuple[bytes, int, int]]:
    """(type, payload start, payload end) of every box, depth first; raises ValueError on a broken layout."""
    end = len(data) if end is None else end
    out = []
    pos = start
    while pos < end:
        if pos + 8 > end:
            raise ValueError(f"truncated box header at {pos}")
        size, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if size < 8 or pos + size > end:
            raise ValueError(f"box {kind!r} at {pos} has a bad size {size}")
        out.append((kind, pos + 8, pos + size))
        if kind in _CONTAINERS:
            out += parse_boxes(data, pos + 8, pos + size)
        pos += size
    return out


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def u(self, n: int) -> int:
        v = 0
        for _ in range(n):
            byte = self.data[self.pos // 8]
            v = (v << 1) | ((byte >> (7 - self.pos % 8)) & 1)
            self.pos += 1
        return v

    def ue(self) -> int:
        zeros = 0
        while self.u(1) == 0:
            zeros += 1
        return (1 << zeros) - 1 + self.u(zeros)


def sps_size(sps_nal: bytes) -> tuple[int, int]:
    """(width, height) in pixels an SPS (baseline, as written above) describes, cropping applied."""
    r = _Reader(unescape(sps_nal[1:]))
    r.u(24)
    r.ue()
    r.ue()
    if r.ue() == 0:
        r.ue()
    r.ue()
    r.u(1)
    w = (r.ue() + 1) * 16
    h = (r.ue() + 1) * 16
    r.u(1)
    r.u(1)
    if r.u(1):
        left, right, top, bottom = r.ue(), r.ue(), r.ue(), r.ue()
        w -= 2 * (left + right)
        h -= 2 * (top + bottom)
    return w, h
