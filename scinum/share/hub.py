"""The Hugging Face Hub, only when asked: upload an export directory, or download one by repo id.

Needs the optional extra ``pip install "scinum[hub]"`` (``huggingface_hub``); nothing else in
scinum imports this module, so the core never touches the network. A downloaded model is the
same directory :func:`scinum.share.export.export` writes (``model.safetensors``, ``config.json``,
``README.md``), loaded with safetensors and JSON only.

>>> scinum.share.hub.push_to_hub("share/planets-xval", "me/planets-xval")
>>> model = scinum.load("hf://me/planets-xval")          # = scinum.load(download(...))
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ScinumError

__all__ = ["PREFIX", "push_to_hub", "download"]

#: ``scinum.load("hf://owner/name[@revision]")`` downloads from the Hub
PREFIX = "hf://"
_FILES = ["model.safetensors", "config.json", "README.md"]


def _hub():
    try:
        import huggingface_hub
    except ImportError:
        raise ScinumError('the Hugging Face Hub needs the optional extra: pip install "scinum[hub]"') from None
    return huggingface_hub


def push_to_hub(
    directory: str | os.PathLike, repo_id: str, *, token: str | None = None, private: bool = False, commit_message: str = "scinum export"
) -> str:
    """Upload an export directory's three files to model repository ``repo_id`` (created if
    needed); returns its URL. ``token``: default the one ``huggingface-cli login`` stored."""
    from ..model.exported import read_config

    directory = Path(directory)
    read_config(directory)  # only a scinum export goes up
    hub = _hub()
    api = hub.HfApi(token=token)
    api.create_repo(repo_id, private=private, exist_ok=True, repo_type="model")
    api.upload_folder(repo_id=repo_id, folder_path=str(directory), allow_patterns=_FILES, commit_message=commit_message, repo_type="model")
    return f"https://huggingface.co/{repo_id}"


def download(repo_id: str, *, revision: str | None = None, cache_dir: str | os.PathLike | None = None, token: str | None = None) -> Path:
    """Download (or find in the local Hub cache) the export files of ``repo_id``; returns the
    snapshot directory, which :func:`scinum.load` reads. ``repo_id`` may carry ``@revision``."""
    if repo_id.startswith(PREFIX):
        repo_id = repo_id[len(PREFIX) :]
    if "@" in repo_id and revision is None:
        repo_id, revision = repo_id.split("@", 1)
    path = _hub().snapshot_download(repo_id, revision=revision, cache_dir=cache_dir, token=token, allow_patterns=_FILES)
    return Path(path)
