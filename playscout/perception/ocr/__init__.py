"""OCR engines: PP-OCR (`ppocr`, from the rapidocr-onnxruntime wheel) and tesseract.
`lines` reads whole frames into text lines with boxes (the scene-text tool); `crops` recognises
small crops in batches (the scoreboard reader). Engines import lazily and load once."""

from playscout.perception.ocr.crops import ENGINES, Recognizer, get_detector, get_engine
from playscout.perception.ocr.lines import Engine, OcrLine, choose_engine, read_lines

__all__ = [
    "ENGINES",
    "Engine",
    "OcrLine",
    "Recognizer",
    "choose_engine",
    "get_detector",
    "get_engine",
    "read_lines",
]
