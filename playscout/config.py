"""One settings object. Every knob has a default and says why; env prefix PLAYSCOUT_.

Run configs (YAML/TOML) validate against the same model through `Settings.from_file`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class SearchSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PLAYSCOUT_SEARCH_", extra="forbid")

    document_top_k: int = Field(20, ge=1, le=200, description="Docs per search (paper: 20).")
    video_top_k: int = Field(100, ge=1, le=1000, description="Clips per search (paper: 100).")
    rrf_k: int = Field(60, ge=1, description="RRF rank constant (reference: 60).")
    document_window: int = Field(200, ge=1, description="Candidates per branch before fusion.")
    clip_window: int = Field(500, ge=1, description="Clip candidates per branch before fusion.")
    highlight_chars: int = Field(500, ge=50, description="Highlight length (paper: 500).")
    fuzzy_cutoff: float = Field(
        0.86, ge=0.5, le=1.0, description="Lowest fuzzy score at which a name is resolved."
    )
    observation_clips: int = Field(
        30, ge=1, description="Clips listed in full in an observation; the rest are summarised."
    )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="PLAYSCOUT_", env_nested_delimiter="__", extra="forbid"
    )

    corpus_dir: Path = Field(Path("var/corpus"), description="T9-layout corpus root.")
    index_dir: Path = Field(Path("var/index"), description="Embedded index directory.")
    backend: str = Field("embedded", description="Search backend: embedded | elasticsearch.")
    search: SearchSettings = Field(default_factory=SearchSettings)

    @classmethod
    def from_file(cls, path: Path) -> Settings:
        """Load a YAML or TOML run config; unknown keys are errors, not ignored."""
        text = path.read_text()
        data: dict[str, Any] = (
            tomllib.loads(text) if path.suffix == ".toml" else (yaml.safe_load(text) or {})
        )
        return cls.model_validate(data)
