"""Raw broadcast video -> the SVI-T9 clip corpus: shots, clip windows, scoreboard-OCR alignment of
the play-by-play (ASAP), speech, audio events and visual embeddings (STARAgent preprocessing),
plus a renderer of synthetic broadcast video so the whole path runs for real in tests."""
