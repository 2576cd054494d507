"""OCR engines behind one call: image -> text lines with confidences.

PP-OCRv4 (`rapidocr-onnxruntime` 1.4.x, models inside the wheel; 3.x downloads at run time, so
it is not supported) reads whole broadcast frames; tesseract needs a grey, upscaled frame to
find small overlay text. Engines load once per process and import lazily, so a server without
OCR packages still starts and says what to install when the tool is called."""

from __future__ import annotations

import functools
import shutil
import threading
from dataclasses import dataclass
from typing import Any, Literal

from playscout.errors import install_hint
from playscout.perception.errors import EngineUnavailable

Engine = Literal["tesseract", "ppocr"]

TESSERACT_MISSING = (
    "tesseract OCR is not installed: apt-get install tesseract-ocr tesseract-ocr-eng, "
    f"and {install_hint('perception')}"
)
PPOCR_MISSING = f"PP-OCR is not installed: {install_hint('perception')}"


@dataclass(frozen=True)
class OcrLine:
    text: str
    confidence: float  # 0..1
    box: tuple[int, int, int, int]  # left, top, right, bottom in the OCR'd image


def ppocr_available() -> bool:
    try:
        import rapidocr_onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def tesseract_available() -> bool:
    try:
        import pytesseract  # noqa: F401
    except ImportError:
        return False
    return shutil.which("tesseract") is not None


def choose_engine(requested: str) -> Engine:
    """`auto` prefers PP-OCR (reads whole frames); an explicit engine that is missing is an
    error, never a silent switch to the other one."""
    if requested == "ppocr":
        if not ppocr_available():
            raise EngineUnavailable(PPOCR_MISSING)
        return "ppocr"
    if requested == "tesseract":
        if not tesseract_available():
            raise EngineUnavailable(TESSERACT_MISSING)
        return "tesseract"
    if ppocr_available():
        return "ppocr"
    if tesseract_available():
        return "tesseract"
    raise EngineUnavailable(f"no OCR engine is installed ({PPOCR_MISSING}; or {TESSERACT_MISSING})")


def read_lines(engine: Engine, image: Any) -> list[OcrLine]:
    return _ppocr(image) if engine == "ppocr" else _tesseract(image)


# ---------------------------------------------------------------- PP-OCR

_ppocr_lock = threading.Lock()  # onnxruntime sessions are shared; one frame at a time


@functools.cache
def _ppocr_engine() -> Any:
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR()


def _ppocr(image: Any) -> list[OcrLine]:
    import numpy as np

    with _ppocr_lock:
        result, _ = _ppocr_engine()(np.asarray(image.convert("RGB")))
    lines = []
    for box, text, score in result or []:
        xs = [int(p[0]) for p in box]
        ys = [int(p[1]) for p in box]
        lines.append(OcrLine(str(text).strip(), float(score), (min(xs), min(ys), max(xs), max(ys))))
    return _reading_order(lines)


# ---------------------------------------------------------------- tesseract

TESSERACT_MIN_SIDE = 1280  # overlay text is small; tesseract needs it upscaled to find it


def _tesseract(image: Any) -> list[OcrLine]:
    import pytesseract
    from PIL import ImageOps

    grey = ImageOps.grayscale(image)
    w, h = grey.size
    scale = max(1.0, TESSERACT_MIN_SIDE / max(w, h))
    if scale > 1.0:
        grey = grey.resize((round(w * scale), round(h * scale)))
    try:
        data = pytesseract.image_to_data(
            grey, config="--psm 3", output_type=pytesseract.Output.DICT
        )
    except pytesseract.TesseractNotFoundError:
        raise EngineUnavailable(TESSERACT_MISSING) from None
    words: dict[tuple[int, int, int], list[int]] = {}
    for i, text in enumerate(data["text"]):
        if str(text).strip() and float(data["conf"][i]) >= 0:
            key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
            words.setdefault(key, []).append(i)
    lines = []
    for idx in words.values():
        text = " ".join(str(data["text"][i]).strip() for i in idx)
        conf = sum(float(data["conf"][i]) for i in idx) / len(idx) / 100.0
        left = min(data["left"][i] for i in idx)
        top = min(data["top"][i] for i in idx)
        right = max(data["left"][i] + data["width"][i] for i in idx)
        bottom = max(data["top"][i] + data["height"][i] for i in idx)
        box = tuple(round(v / scale) for v in (left, top, right, bottom))
        lines.append(OcrLine(text, conf, (box[0], box[1], box[2], box[3])))
    return _reading_order(lines)


def _reading_order(lines: list[OcrLine]) -> list[OcrLine]:
    return sorted((ln for ln in lines if ln.text), key=lambda ln: (ln.box[1] // 16, ln.box[0]))
