"""Whether the Hugging Face hub can be reached now, asked once and cheaply.

A download from an unreachable hub (models through `transformers`, the SQuAD split through `datasets`) fails
only after its client's retries, half a minute on a machine without network. One TCP connection says it in
seconds, so robustqa asks first and fails, or reads the local cache, at once. Behind a proxy a direct
connection proves nothing, and offline mode already fails fast: neither is asked.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "HTTP_PROXY", "http_proxy")


def hub_offline() -> bool:
    """Whether HF_HUB_OFFLINE switches the hub off."""
    return os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0", "false", "False")


def hub_reachable(timeout: float = 3.0) -> bool:
    """One TCP connection to the hub (or $HF_ENDPOINT), instead of the retries a download would make."""
    endpoint = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    try:
        with socket.create_connection((endpoint.hostname or "huggingface.co", endpoint.port or 443), timeout=timeout):
            return True
    except OSError:
        return False


def hub_known_unreachable() -> bool:
    """True when a download would only retry and fail: not switched off, no proxy, and no connection."""
    if hub_offline() or any(os.environ.get(variable) for variable in PROXY_VARIABLES):
        return False
    return not hub_reachable()
