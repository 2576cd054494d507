"""OCR of small crops (scoreboard fields), engines loaded once per process.

`ppocr` (default; the rapidocr-onnxruntime package) runs PP-OCRv4 recognition directly on its ONNX session with the input width
fitted to the crop: RapidOCR's own entry pads every crop to 320 px, which makes a 5-character
clock cost as much as the whole scoreboard (~15 ms instead of ~5 ms). `tesseract` (--psm 7,
whitelisted) is the alternative; at ~90 ms a line it is too slow to be the default.
Detection (full OCR) is only used by the locator, a handful of times per video.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

import numpy as np

from playscout.errors import install_hint
from playscout.perception.errors import EngineUnavailable

ENGINES = ("ppocr", "tesseract")
_ALIASES = {"rapidocr": "ppocr"}  # the engine's package name, accepted on input
_REC_H = 48
_PAD = 4  # background pixels added around a field crop; recognisers dislike glyphs at the edge


class Recognizer(Protocol):
    name: str

    def recognize(self, crops: list[np.ndarray]) -> list[str]:
        """Text of each grey crop (one line each), in order."""
        ...


def _padded(crop: np.ndarray) -> np.ndarray:
    """Background margin on every side, and at least as wide as tall: the recogniser returns
    nothing for a lone narrow glyph (a score of 0) squeezed into a tall thin input."""
    fill = int(np.median(np.concatenate([crop[0], crop[-1]]))) if crop.size else 0
    h, w = crop.shape[:2]
    extra = max(0, h - w) // 2
    return np.pad(
        crop, ((_PAD, _PAD), (_PAD + extra, _PAD + extra)), mode="constant", constant_values=fill
    )


class RapidRecognizer:
    """PP-OCR recognition only, batched, width fitted to each batch's widest crop."""

    name = "ppocr"

    def __init__(self) -> None:
        import cv2
        from rapidocr_onnxruntime import RapidOCR

        self._cv2 = cv2
        # detection + recognition, for the locator. Its default upscales the short side to
        # 736 px, which turns a 40x300 crop into a 736x5500 image (2 s); 128 is plenty for
        # one line of overlay text and leaves full frames at their size.
        self.full = RapidOCR(det_limit_side_len=128, det_limit_type="min")
        rec = self.full.text_rec
        self._session = rec.session
        self._decode = rec.postprocess_op

    def _prep(self, crop: np.ndarray, width: int) -> np.ndarray:
        img = _padded(crop)
        h, w = img.shape[:2]
        rw = min(width, max(1, int(np.ceil(_REC_H * w / h))))
        small = self._cv2.resize(img, (rw, _REC_H)).astype(np.float32) / 127.5 - 1.0
        out = np.zeros((3, _REC_H, width), np.float32)
        out[:, :, :rw] = small[None]
        return out

    def recognize(self, crops: list[np.ndarray]) -> list[str]:
        if not crops:
            return []
        widths = [
            int(np.ceil(_REC_H * (c.shape[1] + 2 * _PAD) / (c.shape[0] + 2 * _PAD))) for c in crops
        ]
        order = np.argsort(widths)
        texts = [""] * len(crops)
        i = 0
        while i < len(order):
            # batch crops of similar width so padding wastes little compute
            j = i + 1
            while j < len(order) and j - i < 16 and widths[order[j]] <= widths[order[i]] * 1.3 + 8:
                j += 1
            idx = order[i:j]
            width = max(widths[k] for k in idx)
            batch = np.stack([self._prep(crops[k], width) for k in idx])
            preds = self._session(batch)[0]
            for k, (text, _score) in zip(idx, self._decode(preds), strict=True):
                texts[k] = text
            i = j
        lone = [k for k, c in enumerate(crops) if not texts[k] and c.shape[1] < c.shape[0]]
        if lone:  # PP-OCR reads nothing from one narrow glyph (a score of 0); tesseract can
            for k, text in zip(lone, _single_glyphs([crops[k] for k in lone]), strict=True):
                texts[k] = text
        return texts

    def detect(self, img: np.ndarray) -> list[tuple[tuple[float, float, float, float], str]]:
        """Full OCR: (x0, y0, x1, y1) and text of each line found in a grey or RGB image."""
        if img.ndim == 2:
            img = np.repeat(img[:, :, None], 3, axis=2)
        result, _ = self.full(img)
        out = []
        for box, text, _score in result or []:
            xs = [p[0] for p in box]
            ys = [p[1] for p in box]
            out.append(((min(xs), min(ys), max(xs), max(ys)), str(text)))
        return out


def _single_glyphs(crops: list[np.ndarray]) -> list[str]:
    """tesseract in single-character mode (--psm 10); "" when it is not installed."""
    try:
        import pytesseract
        from PIL import Image
    except ImportError:  # pragma: no cover - the perception extra is missing
        return [""] * len(crops)
    out = []
    for crop in crops:
        img = _padded(crop)
        img = np.pad(img, 8, mode="edge")
        if img.mean() < 128:
            img = 255 - img
        pil = Image.fromarray(img).resize((img.shape[1] * 2, img.shape[0] * 2))
        try:
            text = pytesseract.image_to_string(pil, config=TesseractRecognizer.CFG_CHAR)
        except (pytesseract.TesseractError, OSError):
            text = ""
        out.append(text.strip())
    return out


class TesseractRecognizer:
    """tesseract, one line per call (--psm 7), dark text on light background, upscaled 2x."""

    name = "tesseract"
    _CFG = "--psm 7 -c tessedit_char_whitelist=0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    CFG_CHAR = "--psm 10 -c tessedit_char_whitelist=0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def __init__(self) -> None:
        import pytesseract

        self._tess = pytesseract
        pytesseract.get_tesseract_version()  # fails fast when the binary is missing

    def recognize(self, crops: list[np.ndarray]) -> list[str]:
        from PIL import Image

        out = []
        for crop in crops:
            img = _padded(crop)
            if img.mean() < 128:
                img = 255 - img
            pil = Image.fromarray(img).resize((img.shape[1] * 2, img.shape[0] * 2))
            out.append(self._tess.image_to_string(pil, config=self._CFG).strip())
        return out


@functools.lru_cache(maxsize=4)
def get_engine(name: str) -> Any:
    """The recogniser `name`, built once per process (model load dominates a short video)."""
    name = _ALIASES.get(name, name)
    if name == "ppocr":
        return RapidRecognizer()
    if name == "tesseract":
        return TesseractRecognizer()
    raise EngineUnavailable(f"unknown OCR engine {name!r}; choose one of {', '.join(ENGINES)}")


@functools.lru_cache(maxsize=1)
def get_detector() -> RapidRecognizer:
    """Full OCR with detection (the locator uses it whatever the field engine is)."""
    try:
        engine = get_engine("ppocr")
    except ImportError:  # pragma: no cover - the perception extra is missing
        raise EngineUnavailable(
            f"scoreboard OCR needs PP-OCR: {install_hint('perception')}"
        ) from None
    assert isinstance(engine, RapidRecognizer)
    return engine
