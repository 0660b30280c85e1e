"""Prolific's REST API (https://api.prolific.com/api/v1/) through `requests`, with urllib3's retries.

Every call has a timeout. A 429 (Prolific's answer to contention on the workspace wallet) is retried with
exponential backoff, honouring Retry-After, for every call: the request was not processed. Server errors
and broken connections are retried only for calls that are safe to repeat (reads, transitions, which
Prolific documents as idempotent, and writes whose value is absolute); creating a study, setting up a bonus
and paying it are never repeated blindly: the services store their intent first and reconcile instead.
4xx answers are never retried; both documented error shapes become one readable message."""
from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from ..base import ProviderError, ProviderUnavailable

RETRY_STATUSES_SAFE = (429, 500, 502, 503, 504)
RETRY_STATUSES_UNSAFE = (429,)  # a 429 means "not processed": repeating cannot do the work twice


class ProlificError(ProviderError):
    """Prolific refused a request (4xx). `status` is the HTTP status, `code` Prolific's error_code if any."""

    def __init__(self, message: str, status: int = 0, code: str = "", detail: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.detail = detail


class ProlificAuthError(ProlificError):
    """401/403: the token is missing, wrong or of another workspace."""


class ProlificUnavailable(ProlificError, ProviderUnavailable):
    """Prolific could not be reached, timed out, or kept answering 429/5xx past our retries."""


def describe_error(body: Any) -> tuple[str, str, Any]:
    """(message, error_code, detail) from either documented error body:
    {"error": {"status", "title", "error_code", "detail", "additional_information"}} or {"message", "detail"}."""
    if not isinstance(body, Mapping):
        return (str(body)[:500] if body else ""), "", body
    error = body.get("error")
    if isinstance(error, Mapping):
        title = str(error.get("title") or "")
        detail = error.get("detail")
        extra = error.get("additional_information")
        parts = [p for p in (title, _flat(detail), _flat(extra)) if p]
        return ": ".join(dict.fromkeys(parts)), str(error.get("error_code") or ""), detail
    if "message" in body or "detail" in body:
        parts = [p for p in (_flat(body.get("message")), _flat(body.get("detail"))) if p]
        return ": ".join(dict.fromkeys(parts)), "", body.get("detail")
    return _flat(body), "", body


def _flat(value: Any) -> str:
    """A detail as text: strings as they are, lists joined, {"field": ["problem"]} as "field: problem"."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "; ".join(f"{key}: {_flat(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(_flat(item) for item in value)
    return str(value)


class ProlificClient:
    def __init__(self, base_url: str, token: str, *, timeout: float = 20.0, attempts: int = 5,
                 backoff: float = 0.5) -> None:
        self.base_url = base_url.rstrip("/") + "/"
        self.token = token
        self.timeout = timeout
        self._safe = self._session(Retry(
            total=attempts - 1, connect=attempts - 1, read=attempts - 1, status=attempts - 1,
            status_forcelist=RETRY_STATUSES_SAFE, allowed_methods=None, backoff_factor=backoff,
            respect_retry_after_header=True, raise_on_status=False))
        self._unsafe = self._session(Retry(
            total=attempts - 1, connect=attempts - 1, read=0, other=0, status=attempts - 1,
            status_forcelist=RETRY_STATUSES_UNSAFE, allowed_methods=None, backoff_factor=backoff,
            respect_retry_after_header=True, raise_on_status=False))

    def _session(self, retry: Retry) -> requests.Session:
        session = requests.Session()
        adapter = HTTPAdapter(max_retries=retry)
        session.mount("https://", adapter)
        session.mount("http://", adapter)
        session.headers.update({"Authorization": f"Token {self.token}", "Accept": "application/json"})
        return session

    def url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else self.base_url + path.lstrip("/")

    def call(self, method: str, path: str, *, json: Any = None, params: Mapping[str, Any] | None = None,
             safe: bool = True) -> requests.Response:
        """The raw response of a successful call. `safe=False`: the call may have an effect each time it
        is sent (create, bonus set-up, pay): only a 429 is retried."""
        if not self.token:
            raise ProlificAuthError("PROLIFIC_TOKEN is not set: create an API token in Prolific's workspace "
                                    "settings and export it as PROLIFIC_TOKEN.")
        session = self._safe if safe else self._unsafe
        where = f"{method} {path}"
        try:
            response = session.request(method, self.url(path), json=json, params=params, timeout=self.timeout)
        except requests.exceptions.RetryError as exc:
            raise ProlificUnavailable(f"Prolific kept failing {where}: {exc}") from exc
        except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as exc:
            raise ProlificUnavailable(f"Prolific could not be reached for {where}: {exc}") from exc
        if response.status_code < 400:
            return response
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text
        message, code, detail = describe_error(body)
        text = f"Prolific refused {where} ({response.status_code}): {message or response.reason}"
        if response.status_code in (401, 403):
            raise ProlificAuthError(text + " (check PROLIFIC_TOKEN and PROLIFIC_WORKSPACE_ID)",
                                    response.status_code, code, detail)
        if response.status_code == 429 or response.status_code >= 500:
            raise ProlificUnavailable(text, response.status_code, code, detail)
        raise ProlificError(text, response.status_code, code, detail)

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        return _body(self.call("GET", path, params=params))

    def post(self, path: str, json: Any = None, *, safe: bool = True) -> Any:
        return _body(self.call("POST", path, json=json, safe=safe))

    def patch(self, path: str, json: Any) -> Any:
        return _body(self.call("PATCH", path, json=json))

    def delete(self, path: str, json: Any = None) -> Any:
        return _body(self.call("DELETE", path, json=json))

    def pages(self, path: str, params: Mapping[str, Any] | None = None, *, limit: int = 200) -> Iterator[dict]:
        """Every item of a list endpoint, page after page (never only the first page). Handles both of
        Prolific's paginations: limit/offset with `_links.next` and `meta.count`
        (`/studies/{id}/submissions/`), and page/page_size with `next` (`/submissions/`)."""
        query = dict(params or {})
        page_style = "page_size" in query
        if not page_style:
            query.setdefault("limit", limit)
            query.setdefault("offset", 0)
        else:
            query.setdefault("page", 1)
        seen = int(query.get("offset", 0)) if not page_style else (int(query["page"]) - 1) * int(query["page_size"])
        while True:
            body = self.get(path, query)
            if isinstance(body, list):  # an endpoint that answers with a bare list has no further page
                yield from body
                return
            results = body.get("results") or []
            yield from results
            seen += len(results)  # items up to the end of this page (with either pagination, for meta.count)
            size = int(query["page_size"] if page_style else query["limit"])
            if not results or not _has_next(body, len(results), size, seen):
                return
            if page_style:
                query["page"] = int(query["page"]) + 1
            else:
                query["offset"] = int(query["offset"]) + len(results)


def _has_next(body: Mapping[str, Any], got: int, size: int, seen: int) -> bool:
    links = body.get("_links")
    if isinstance(links, Mapping) and "next" in links:
        nxt = links.get("next")
        href = nxt.get("href") if isinstance(nxt, Mapping) else nxt
        return bool(href)
    if "next" in body:
        return bool(body.get("next"))
    meta = body.get("meta")
    if isinstance(meta, Mapping) and meta.get("count") is not None:
        return seen < int(meta["count"])
    return got >= size


def _body(response: requests.Response) -> Any:
    if response.status_code == 204 or not response.content:
        return {}
    try:
        return response.json()
    except ValueError:
        return {"detail": response.text}


_client: ProlificClient | None = None
_lock = threading.Lock()


def get_client() -> ProlificClient:
    """The process's client, configured from the PROLIFIC_* settings."""
    global _client
    with _lock:
        if _client is None:
            _client = ProlificClient(settings.PROLIFIC_API_URL, settings.PROLIFIC_TOKEN,
                                     timeout=settings.PROLIFIC_TIMEOUT_SECONDS,
                                     attempts=settings.PROLIFIC_MAX_ATTEMPTS,
                                     backoff=settings.PROLIFIC_RETRY_BASE_SECONDS)
        return _client


def reset_client() -> None:
    """Forget the client (tests change the settings)."""
    global _client
    with _lock:
        _client = None
