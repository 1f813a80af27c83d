"""The audio files Audio Recorder's recorders write, built for a silent recording of a given length (the twin has no
microphone): what MediaRecorder writes for the M4a format (AAC-LC in an ISO BMFF `.m4a`: ftyp, moov with one `soun`
track whose `mp4a` sample entry carries the AudioSpecificConfig in its `esds`, mdat), for 3gp (AMR-NB at 8 kHz or
AMR-WB at 16 kHz in a `3gp4` file, `samr` / `sawb` with a `damr` box) and what WavRecorder writes for Wav (16-bit
PCM RIFF). The AAC frames are the smallest silent ones an encoder emits (one per 1024 samples, a single or pair
channel element with no spectral data), the AMR ones NO_DATA frames (one per 20 ms), so a minute costs a few
kilobytes; players and ffmpeg decode them to silence of the recorded length."""

from __future__ import annotations

import math
import struct
import wave
from io import BytesIO

# one silent raw AAC-LC frame (1024 samples): a single channel element (mono) or a channel pair element (stereo)
SILENT_AAC = {1: bytes.fromhex("01182007"), 2: bytes.fromhex("211004608c1c")}
AAC_RATES = (96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350)
AMR_WB_NO_DATA = b"\x7c"  # AMR-WB frame type 15 (no data), quality bit set
AMR_NB_SILENT = b"\x04" + bytes(12)  # AMR-NB 4.75 kbit/s (type 0) with every parameter zero: no gain, silence
MP4_EPOCH = 2082844800  # seconds from 1904-01-01 (ISO BMFF times) to 1970-01-01


def box(kind: bytes, *payload: bytes) -> bytes:
    body = b"".join(payload)
    return struct.pack(">I", 8 + len(body)) + kind + body


def full_box(kind: bytes, version: int, flags: int, *payload: bytes) -> bytes:
    return box(kind, struct.pack(">I", (version << 24) | flags), *payload)


def _descriptor(tag: int, body: bytes) -> bytes:
    """An MPEG-4 descriptor (ISO 14496-1): the tag, the length in four 7-bit bytes, the body."""
    n = len(body)
    size = bytes([0x80 | ((n >> 21) & 0x7F), 0x80 | ((n >> 14) & 0x7F), 0x80 | ((n >> 7) & 0x7F), n & 0x7F])
    return bytes([tag]) + size + body


def audio_specific_config(sample_rate: int, channels: int) -> bytes:
    """AAC-LC's AudioSpecificConfig: object type 2, the sampling frequency index (or the explicit rate), channels."""
    if sample_rate in AAC_RATES:
        bits = (2 << 11) | (AAC_RATES.index(sample_rate) << 7) | (channels << 3)
        return struct.pack(">H", bits)
    bits = (2 << 35) | (15 << 31) | (sample_rate << 7) | (channels << 3)
    return bits.to_bytes(5, "big")


def _esds(sample_rate: int, channels: int, bitrate: int, max_frame: int) -> bytes:
    dsi = _descriptor(0x05, audio_specific_config(sample_rate, channels))
    # DecoderConfigDescriptor: objectTypeIndication 0x40 (MPEG-4 audio), streamType 5 (audio) << 2 | 1
    dcd = _descriptor(
        0x04, bytes([0x40, 0x15]) + max_frame.to_bytes(3, "big") + struct.pack(">II", bitrate, bitrate) + dsi
    )
    es = _descriptor(0x03, struct.pack(">HB", 1, 0) + dcd + _descriptor(0x06, b"\x02"))
    return full_box(b"esds", 0, 0, es)


def _sound_entry(kind: bytes, channels: int, sample_rate: int, *children: bytes) -> bytes:
    """An AudioSampleEntry: six reserved bytes, data reference 1, channels, 16 bits, the rate in 16.16."""
    head = b"\x00" * 6 + struct.pack(">H", 1) + b"\x00" * 8
    head += struct.pack(">HHHH", channels, 16, 0, 0) + struct.pack(">I", (sample_rate & 0xFFFF) << 16)
    return box(kind, head, *children)


def _mp4(
    brands: tuple[bytes, ...], entry: bytes, timescale: int, frames: list[bytes], frame_len: int, created: int
) -> bytes:
    """ftyp, moov (mvhd, one sound trak) and mdat with `frames`, each `frame_len` ticks of `timescale` long."""
    duration = len(frames) * frame_len
    when = created + MP4_EPOCH
    matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    mvhd = full_box(
        b"mvhd",
        0,
        0,
        struct.pack(">IIII", when, when, 1000, duration * 1000 // timescale),
        struct.pack(">IH", 0x10000, 0x100),
        b"\x00" * 10,
        matrix,
        b"\x00" * 24,
        struct.pack(">I", 2),
    )
    tkhd = full_box(
        b"tkhd",
        0,
        7,
        struct.pack(">IIII", when, when, 1, 0),
        struct.pack(">I", duration * 1000 // timescale),
        b"\x00" * 8,
        struct.pack(">HHHH", 0, 0, 0x100, 0),
        matrix,
        struct.pack(">II", 0, 0),
    )
    mdhd = full_box(b"mdhd", 0, 0, struct.pack(">IIII", when, when, timescale, duration), struct.pack(">HH", 0x55C4, 0))
    hdlr = full_box(b"hdlr", 0, 0, b"\x00" * 4, b"soun", b"\x00" * 12, b"SoundHandle\x00")
    sizes = [len(f) for f in frames]
    same = len(set(sizes)) == 1

    def moov(mdat_offset: int) -> bytes:
        stbl = box(
            b"stbl",
            full_box(b"stsd", 0, 0, struct.pack(">I", 1), entry),
            full_box(b"stts", 0, 0, struct.pack(">III", 1, len(frames), frame_len)),
            full_box(b"stsc", 0, 0, struct.pack(">IIII", 1, 1, len(frames), 1)),
            full_box(
                b"stsz",
                0,
                0,
                struct.pack(">II", sizes[0] if same else 0, len(frames)),
                b"" if same else struct.pack(f">{len(sizes)}I", *sizes),
            ),
            full_box(b"stco", 0, 0, struct.pack(">II", 1, mdat_offset)),
        )
        minf = box(
            b"minf",
            full_box(b"smhd", 0, 0, b"\x00" * 4),
            box(b"dinf", full_box(b"dref", 0, 0, struct.pack(">I", 1), full_box(b"url ", 0, 1))),
            stbl,
        )
        return box(b"moov", mvhd, box(b"trak", tkhd, box(b"mdia", mdhd, hdlr, minf)))

    ftyp = box(b"ftyp", brands[0], struct.pack(">I", 0), *brands)
    head = len(ftyp) + len(moov(0)) + 8
    return ftyp + moov(head) + box(b"mdat", *frames)


def m4a(seconds: float, sample_rate: int, channels: int, bitrate: int, created: int = 0) -> bytes:
    """An AAC-LC `.m4a` of `seconds` of silence (at least one frame), as MediaRecorder's MPEG_4 output holds it."""
    channels = 1 if channels == 1 else 2
    count = max(1, math.ceil(seconds * sample_rate / 1024))
    frame = SILENT_AAC[channels]
    entry = _sound_entry(b"mp4a", channels, sample_rate, _esds(sample_rate, channels, bitrate, len(frame)))
    return _mp4((b"isom", b"isom", b"mp42"), entry, sample_rate, [frame] * count, 1024, created)


def three_gp(seconds: float, sample_rate: int, created: int = 0) -> bytes:
    """A `.3gp` of `seconds` of silence: AMR-WB at 16 kHz, AMR-NB otherwise (8 kHz), 20 ms a frame."""
    wide = sample_rate == 16000
    rate = 16000 if wide else 8000
    count = max(1, math.ceil(seconds * 50))
    damr = box(b"damr", b"FFMP", struct.pack(">BHBB", 0, 0x83FF if not wide else 0x01FF, 0, 1))
    entry = _sound_entry(b"sawb" if wide else b"samr", 1, rate, damr)
    return _mp4(
        (b"3gp4", b"isom", b"3gp4"),
        entry,
        rate,
        [AMR_WB_NO_DATA if wide else AMR_NB_SILENT] * count,
        rate // 50,
        created,
    )


def wav(seconds: float, sample_rate: int, channels: int) -> bytes:
    """A 16-bit PCM RIFF WAVE of `seconds` of silence."""
    out = BytesIO()
    with wave.open(out, "wb") as wf:
        wf.setnchannels(channels)
        wf.setsampwidth(2)
        wf.setframerate(sample_rate)
        wf.writeframes(b"\x00" * (2 * channels * round(seconds * sample_rate)))
    return out.getvalue()


def record_file(fmt: str, seconds: float, sample_rate: int, channels: int, bitrate: int, created: int = 0) -> bytes:
    """The file a recording of format `fmt` ("m4a", "wav", "3gp") leaves."""
    if fmt == "wav":
        return wav(seconds, sample_rate, channels)
    if fmt == "3gp":
        return three_gp(seconds, sample_rate, created)
    return m4a(seconds, sample_rate, channels, bitrate, created)
