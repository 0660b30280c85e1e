"""HTTP through the balancer for the scale-out run: every request is recorded (what, when it was sent, how long it
took, its status, the node HAProxy says answered it). A request that gets no answer or a 502/503/504 is tried
again, as a browser's retry or an API client's would be (each try is recorded); the submission endpoint is
idempotent, so a repeated answer is stored once."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import requests

RETRIED = (502, 503, 504)
TRIES = 4


@dataclass
class Record:
    label: str
    method: str
    sent: float  # time.monotonic() when sent
    seconds: float
    status: int  # 0: no answer (connection error)
    node: str  # X-Served-By, or "" without an answer
    attempt: int
    error: str = ""  # why there was no answer


class Recorder:
    def __init__(self, base: str) -> None:
        self.base = base
        self.records: list[Record] = []
        self.lock = threading.Lock()

    def session(self, token: str | None = None) -> Client:
        return Client(self, token)


class Client:
    """One browser or API client (its own cookies and connections)."""

    def __init__(self, recorder: Recorder, token: str | None) -> None:
        self.recorder = recorder
        self.http = requests.Session()
        if token:
            self.http.headers["Authorization"] = f"Token {token}"

    def url(self, path: str) -> str:
        return path if path.startswith("http") else self.recorder.base + path

    def request(self, method: str, path: str, label: str, expect: tuple[int, ...] = (200,),
                **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 60)
        kwargs.setdefault("allow_redirects", False)
        response: requests.Response | None = None
        for attempt in range(1, TRIES + 1):
            sent, error = time.monotonic(), ""
            try:
                response = self.http.request(method, self.url(path), **kwargs)
                status, node = response.status_code, response.headers.get("X-Served-By", "")
            except requests.ConnectionError as exc:
                response, status, node, error = None, 0, "", str(exc)[:300]
            with self.recorder.lock:
                self.recorder.records.append(Record(label, method, sent, time.monotonic() - sent, status, node,
                                                    attempt, error))
            if status and status not in RETRIED:
                break
            time.sleep(0.5 * attempt)
        if response is None or response.status_code not in expect:
            detail = response.text[:500] if response is not None else "no answer"
            raise RuntimeError(f"{method} {path} ({label}): {response.status_code if response is not None else 0}, "
                               f"expected {expect}: {detail}")
        return response

    def get(self, path: str, label: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, label, **kwargs)

    def post(self, path: str, label: str, **kwargs: Any) -> requests.Response:
        return self.request("POST", path, label, **kwargs)

    def wait_json(self, path: str, label: str, done: Any, timeout: float) -> tuple[dict[str, Any], float]:
        """Poll `path` until `done(body)`; (the last body, seconds waited). Gives up after `timeout` seconds."""
        started = time.monotonic()
        while True:
            body = self.get(path, label).json()
            if done(body) or time.monotonic() - started > timeout:
                return body, time.monotonic() - started
            time.sleep(0.25)
