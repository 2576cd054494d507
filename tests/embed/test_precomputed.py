"""PrecomputedVectors over the three layouts of `embeds/videos/{sport}/`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from playscout.embed import (
    EmbedderSpec,
    EmbeddingError,
    PrecomputedVectors,
    make_embedder,
    write_consolidated,
)

DIM = 8


def _vec(i: int, dim: int = DIM) -> np.ndarray:
    return np.random.default_rng(i).normal(size=dim).astype(np.float32) * (i + 1)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _flat(root: Path, sport: str = "soccer", n: int = 4) -> Path:
    (root / sport).mkdir(parents=True)
    for i in range(n):
        np.save(root / sport / f"clip_{i}.npy", _vec(i))
    return root


def _bucketed(root: Path, sport: str = "hockey", n: int = 4, mapping: bool = True) -> Path:
    d = root / sport
    m = {}
    for i in range(n):
        bucket = f"{i % 2:02d}"
        (d / bucket).mkdir(parents=True, exist_ok=True)
        np.save(d / bucket / f"clip_{i}.npy", _vec(i)[None, :])  # (1, d) as written by some tools
        m[f"clip_{i}.npy"] = bucket
    if mapping:
        (d / "_bucket_mapping.json").write_text(json.dumps(m))
    return root


def test_flat_layout(tmp_path: Path) -> None:
    pv = PrecomputedVectors(_flat(tmp_path))
    assert pv.ids("soccer") == ["clip_0", "clip_1", "clip_2", "clip_3"]
    out = pv.vectors_for("soccer", ["clip_2", "clip_0"])
    assert out.dtype == np.float32 and out.shape == (2, DIM)
    np.testing.assert_allclose(out, np.stack([_unit(_vec(2)), _unit(_vec(0))]), atol=1e-6)
    assert pv.dim == DIM


@pytest.mark.parametrize("mapping", [True, False])
def test_bucketed_layout(tmp_path: Path, mapping: bool) -> None:
    pv = PrecomputedVectors(_bucketed(tmp_path, mapping=mapping))
    assert pv.ids("hockey") == [f"clip_{i}" for i in range(4)]
    np.testing.assert_allclose(
        pv.vectors_for("hockey", ["clip_3"]), _unit(_vec(3))[None, :], atol=1e-6
    )


def test_consolidated_round_trip(tmp_path: Path) -> None:
    ids = ["b", "a", "c"]
    vecs = np.stack([_vec(i) for i in range(3)])
    sport_dir = write_consolidated(tmp_path, "basketball", ids, vecs)
    assert sorted(p.name for p in sport_dir.iterdir()) == ["ids.txt", "vectors.npy"]
    pv = PrecomputedVectors(tmp_path)
    assert pv.ids("basketball") == ids  # file order, not sorted
    np.testing.assert_allclose(
        pv.vectors_for("basketball", ["c", "b"]),
        np.stack([_unit(vecs[2]), _unit(vecs[0])]),
        atol=1e-6,
    )
    raw = np.load(sport_dir / "vectors.npy")
    np.testing.assert_allclose(np.linalg.norm(raw, axis=1), 1.0, atol=1e-6)


def test_flat_and_consolidated_give_the_same_vectors(tmp_path: Path) -> None:
    flat = PrecomputedVectors(_flat(tmp_path / "flat"))
    ids = flat.ids("soccer")
    write_consolidated(tmp_path / "cons", "soccer", ids, flat.vectors_for("soccer", ids))
    cons = PrecomputedVectors(tmp_path / "cons")
    np.testing.assert_allclose(
        cons.vectors_for("soccer", ids), flat.vectors_for("soccer", ids), atol=1e-6
    )


def test_missing_ids_are_listed(tmp_path: Path) -> None:
    pv = PrecomputedVectors(_flat(tmp_path))
    wanted = ["clip_0", *[f"gone_{i}" for i in range(7)]]
    with pytest.raises(EmbeddingError) as info:
        pv.vectors_for("soccer", wanted)
    msg = str(info.value)
    assert msg.startswith("7 clip id(s) have no vector in ")
    assert "'gone_0', 'gone_1', 'gone_2', 'gone_3', 'gone_4' …" in msg and "gone_5" not in msg


def test_dim_mismatch_names_the_file(tmp_path: Path) -> None:
    _flat(tmp_path)
    np.save(tmp_path / "soccer" / "clip_9.npy", _vec(9, dim=DIM + 1))
    with pytest.raises(
        EmbeddingError, match=r"vector file .*clip_9\.npy is 9-d but .*clip_0\.npy is 8-d"
    ):
        PrecomputedVectors(tmp_path).ids("soccer")


def test_dims_must_agree_across_sports(tmp_path: Path) -> None:
    _flat(tmp_path)
    write_consolidated(tmp_path, "hockey", ["x"], _vec(1, dim=4)[None, :])
    with pytest.raises(EmbeddingError, match="different dims"):
        _ = PrecomputedVectors(tmp_path).dim


def test_spec_dim_is_checked(tmp_path: Path) -> None:
    pv = make_embedder(EmbedderSpec(kind="precomputed", model=str(_flat(tmp_path)), dim=512))
    with pytest.raises(EmbeddingError, match="are 8-d but the spec says 512"):
        pv.vectors_for("soccer", ["clip_0"])  # type: ignore[attr-defined]


def test_spec_and_make_embedder(tmp_path: Path) -> None:
    pv = PrecomputedVectors(_flat(tmp_path))
    spec = pv.spec()
    assert spec == EmbedderSpec(kind="precomputed", model=str(tmp_path), dim=DIM)
    again = make_embedder(spec)
    assert isinstance(again, PrecomputedVectors) and again.ids("soccer") == pv.ids("soccer")


def test_cannot_embed_text(tmp_path: Path) -> None:
    pv = PrecomputedVectors(_flat(tmp_path))
    for fn in (pv.embed_queries, pv.embed_documents):
        with pytest.raises(EmbeddingError, match="text tower of the same model behind an OpenAI"):
            fn(["a goal"])


def test_bad_files_and_names(tmp_path: Path) -> None:
    _flat(tmp_path)
    np.save(tmp_path / "soccer" / "clip_bad.npy", np.zeros((2, DIM), dtype=np.float32))
    with pytest.raises(EmbeddingError, match=r"clip_bad\.npy has shape \(2, 8\)"):
        PrecomputedVectors(tmp_path).ids("soccer")
    pv = PrecomputedVectors(tmp_path)
    with pytest.raises(EmbeddingError, match="invalid sport name"):
        pv.ids("../soccer")
    with pytest.raises(EmbeddingError, match="does not exist"):
        pv.ids("curling")
    with pytest.raises(EmbeddingError, match="is not a directory"):
        PrecomputedVectors(tmp_path / "nope")


def test_zero_vector_is_an_error(tmp_path: Path) -> None:
    _flat(tmp_path)
    np.save(tmp_path / "soccer" / "clip_0.npy", np.zeros(DIM, dtype=np.float32))
    with pytest.raises(EmbeddingError, match="all-zero vector"):
        PrecomputedVectors(tmp_path).vectors_for("soccer", ["clip_1", "clip_0"])


def test_mapping_pointing_to_missing_file(tmp_path: Path) -> None:
    _bucketed(tmp_path)
    (tmp_path / "hockey" / "01" / "clip_3.npy").unlink()
    with pytest.raises(EmbeddingError, match=r"vector file for clip 'clip_3' is missing"):
        PrecomputedVectors(tmp_path).ids("hockey")


def test_write_consolidated_validates(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="ids are not unique"):
        write_consolidated(tmp_path, "soccer", ["a", "a"], np.ones((2, 3)))
    with pytest.raises(EmbeddingError, match=r"2 ids but vectors shape \(3, 3\)"):
        write_consolidated(tmp_path, "soccer", ["a", "b"], np.ones((3, 3)))
    with pytest.raises(EmbeddingError, match="whitespace"):
        write_consolidated(tmp_path, "soccer", ["a\nb"], np.ones((1, 3)))
    assert not (tmp_path / "soccer" / "vectors.npy").exists()


def test_consolidated_ids_must_match_rows(tmp_path: Path) -> None:
    d = write_consolidated(tmp_path, "soccer", ["a", "b"], np.ones((2, 3)))
    (d / "ids.txt").write_text("a\n")
    with pytest.raises(EmbeddingError, match=r"has shape \(2, 3\) but .*ids.txt lists 1 ids"):
        PrecomputedVectors(tmp_path).ids("soccer")
