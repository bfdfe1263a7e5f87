"""A model's id, worked out without loading it, against the id the loaded model has."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sharc import model_config
from sharc.errors import ModelError
from sharc.model_config import DEFAULT_MODEL, expected_model_id


def test_the_expected_id_is_the_loaded_models() -> None:
    from sharc.embedding import load_embedder

    assert expected_model_id(None, device="cpu") == load_embedder(device="cpu").model_id
    assert expected_model_id(None, device="auto") == load_embedder(device="auto").model_id


def test_the_int8_choice_follows_the_device_and_the_quantizer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert expected_model_id(None, device="cpu") == f"{DEFAULT_MODEL}+int8"
    assert expected_model_id(None, device="cuda") == DEFAULT_MODEL
    monkeypatch.setattr(model_config, "_cuda_build_installed", lambda: True)
    assert expected_model_id(None, device="auto") == DEFAULT_MODEL
    monkeypatch.setattr(model_config, "_cuda_build_installed", lambda: False)
    assert expected_model_id(None, device="auto") == f"{DEFAULT_MODEL}+int8"
    monkeypatch.setattr(model_config, "_quantizer_available", lambda: False)
    assert expected_model_id(None, device="cpu") == DEFAULT_MODEL


def test_a_remembered_id_settles_the_int8_choice_for_the_same_model_only(
    tmp_path: Path,
) -> None:
    # Remembered from a machine with a GPU: the same model, without the int8 copy.
    assert expected_model_id(None, device="auto", remembered=DEFAULT_MODEL) == DEFAULT_MODEL
    # Another model's id settles nothing.
    assert expected_model_id(None, device="cpu", remembered="CodeRankEmbed") == (
        f"{DEFAULT_MODEL}+int8"
    )
    model = tmp_path / "encoder"
    model.mkdir()
    (model / "sharc-model.json").write_text(json.dumps({"preset": "CodeRankEmbed"}))
    assert expected_model_id(model, device="cpu") == "CodeRankEmbed"
    assert expected_model_id(model, device="cpu", remembered=f"{DEFAULT_MODEL}+int8") == (
        "CodeRankEmbed"
    )


def test_bad_models_and_devices_fail_as_loading_would(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="neither"):
        expected_model_id(tmp_path / "missing")
    with pytest.raises(ModelError, match="is a preset"):
        expected_model_id("CodeRankEmbed")
    with pytest.raises(ValueError, match="device must be"):
        expected_model_id(None, device="tpu")


def test_working_out_the_id_imports_neither_onnxruntime_nor_numpy() -> None:
    code = (
        "import sys; from sharc.model_config import expected_model_id; "
        "expected_model_id(None, device='auto'); "
        "print(','.join(m for m in ('onnxruntime', 'numpy', 'tokenizers') if m in sys.modules))"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert output.stdout.strip() == ""
