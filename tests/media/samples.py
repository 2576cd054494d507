"""Real test media, made on the spot: Pillow-rendered scoreboard frames encoded to h264 with
PyAV, and espeak-ng speech muxed in as an AAC track. Nothing is mocked: the tools decode and
read these files exactly as they would a broadcast clip. `add_media_clips` puts such files at
the clip paths of a (copied) corpus."""

from __future__ import annotations

import shutil
import subprocess
import wave
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from playscout.corpus import Corpus

SCOREBOARD = "ARS 2 - 1 CHE 67:12"
SPEECH = "The striker scores a goal in the final minute. The referee shows a yellow card."
FONT_PATHS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in FONT_PATHS:
        if Path(path).is_file():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


def scoreboard_frame(text: str = SCOREBOARD, size: tuple[int, int] = (640, 360)) -> Image.Image:
    """A green pitch with a broadcast-style white-on-black scoreboard box, top left."""
    img = Image.new("RGB", size, (34, 120, 50))
    draw = ImageDraw.Draw(img)
    draw.rectangle((20, 20, 500, 80), fill=(10, 10, 10))
    draw.text((32, 28), text, font=_font(36), fill=(255, 255, 255))
    draw.ellipse((300, 200, 330, 230), fill=(240, 240, 240))  # a ball, so it is not only text
    return img


def espeak_wav(text: str, out: Path) -> Path:
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise RuntimeError("espeak-ng is not installed (apt-get install espeak-ng)")
    subprocess.run([exe, "-v", "en-us", "-s", "150", "-w", str(out), text], check=True)
    return out


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path)) as w:
        raw = w.readframes(w.getnframes())
        assert w.getsampwidth() == 2 and w.getnchannels() == 1
        return np.frombuffer(raw, dtype=np.int16).astype(np.float32) / 32768.0, w.getframerate()


def write_clip(
    out: Path,
    frames: list[Image.Image],
    fps: int = 5,
    audio: np.ndarray | None = None,
    sample_rate: int = 22050,
) -> Path:
    """Encode frames (h264, yuv420p) and an optional mono float audio track (AAC) to mp4."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(out), "w") as container:
        v = container.add_stream("libx264", rate=fps)
        v.width, v.height = frames[0].size
        v.pix_fmt = "yuv420p"
        a = None
        if audio is not None:
            a = container.add_stream("aac", rate=sample_rate)
            a.layout = "mono"
        for img in frames:
            container.mux(v.encode(av.VideoFrame.from_image(img)))
        container.mux(v.encode(None))
        if a is not None and audio is not None:
            step = 1024
            for i in range(0, audio.size, step):
                chunk = audio[i : i + step].astype(np.float32).reshape(1, -1)
                frame = av.AudioFrame.from_ndarray(chunk, format="flt", layout="mono")
                frame.sample_rate = sample_rate
                frame.pts = i
                frame.time_base = Fraction(1, sample_rate)
                container.mux(a.encode(frame))
            container.mux(a.encode(None))
    return out


def scoreboard_clip(out: Path, seconds: float = 3.0, fps: int = 5) -> Path:
    """Silence-free video with no audio track; the scoreboard changes clock at half time."""
    n = int(seconds * fps)
    frames = [scoreboard_frame() for _ in range(n)]
    return write_clip(out, frames, fps)


def speech_clip(out: Path, wav: Path, fps: int = 5) -> Path:
    """The spoken sentence as the audio track of a scoreboard video of the same length."""
    audio, sr = read_wav(wav)
    n = max(1, int(audio.size / sr * fps) + 1)
    return write_clip(out, [scoreboard_frame() for _ in range(n)], fps, audio, sr)


def tone_clip(out: Path, seconds: float = 3.0, sample_rate: int = 22050) -> Path:
    """A 440 Hz tone with quiet noise: audio that is not speech."""
    t = np.arange(int(seconds * sample_rate)) / sample_rate
    rng = np.random.default_rng(0)
    audio = 0.3 * np.sin(2 * np.pi * 440 * t) + 0.01 * rng.standard_normal(t.size)
    frames = [scoreboard_frame() for _ in range(int(seconds * 5))]
    return write_clip(out, frames, 5, audio.astype(np.float32), sample_rate)


def broken_clip(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8)
    return out


@dataclass(frozen=True)
class MediaCorpus:
    """A corpus whose first five clips of one game are: a scoreboard video without audio
    (`board`), the same with spoken audio (`speech`, `speech_seconds` long), a tone (`tone`),
    a broken file (`broken`), and a clip listed but never written (`missing`)."""

    corpus: Corpus
    sport: str
    board: str  # clip ids
    speech: str
    tone: str
    broken: str
    missing: str
    speech_seconds: float


def add_media_clips(corpus: Corpus, sport: str) -> MediaCorpus:
    """Write the media files into `corpus` (a private copy: this changes it)."""
    root = corpus.root
    game_id = next(iter(corpus.games(sport)))
    ids = sorted(corpus.clip_paths(sport, game_id), key=lambda c: int(c.rsplit("_", 1)[1]))[:5]
    board, speech, tone, broken, missing = ids

    def path(clip_id: str) -> Path:
        p = corpus.clip_path(sport, clip_id)
        assert p is not None and p.is_relative_to(root)
        return p

    wav = espeak_wav(SPEECH, root / "speech.wav")
    audio, sr = read_wav(wav)
    scoreboard_clip(path(board))
    speech_clip(path(speech), wav)
    tone_clip(path(tone))
    broken_clip(path(broken))
    assert not path(missing).exists()
    return MediaCorpus(corpus, sport, board, speech, tone, broken, missing, audio.size / sr)
