"""Signed tokens that carry worker identity in links and pages (no cookies needed), and the local crowd's
browser identity (the same worker when the browser comes back: a cookie, or the page's storage)."""
from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core import signing


class TokenError(Exception):
    """A token that is forged, malformed or expired. The message is safe to show."""


@dataclass(frozen=True)
class AssignmentClaim:
    assignment_id: int
    worker_external_id: str


def _dump(data: dict, salt: str) -> str:
    return signing.dumps(data, salt=salt, compress=True)


def _dump_permanent(data: dict, salt: str) -> str:
    """A signed token without a timestamp: the same link every time (campaign and preview links)."""
    return signing.Signer(salt=salt).sign_object(data, compress=True)


def _load(token: str, salt: str, max_age: int | None) -> dict:
    if not token:
        raise TokenError("The link is missing its token.")
    try:
        if max_age is None:
            return signing.Signer(salt=salt).unsign_object(token)
        return signing.loads(token, salt=salt, max_age=max_age)
    except signing.SignatureExpired:
        raise TokenError("This link has expired. Please start again from the campaign link.") from None
    except signing.BadSignature:
        raise TokenError("This link is not valid (its signature does not match).") from None


def campaign_token(campaign_id: int) -> str:
    return _dump_permanent({"c": campaign_id}, "campaign")


def read_campaign_token(token: str) -> int:
    return int(_load(token, "campaign", None)["c"])


def worker_token(campaign_id: int, worker_external_id: str) -> str:
    return _dump({"c": campaign_id, "w": worker_external_id}, "worker")


def read_worker_token(token: str, campaign_id: int) -> str:
    data = _load(token, "worker", settings.WORKER_TOKEN_MAX_AGE)
    if data.get("c") != campaign_id:
        raise TokenError("This worker link belongs to another campaign.")
    return str(data["w"])


def identity_token(worker_external_id: str) -> str:
    """A local worker's browser identity: kept in an HttpOnly cookie and in the page's storage, for no campaign in
    particular (the same browser is the same worker everywhere), renewed on every start."""
    return _dump({"w": worker_external_id}, "local-identity")


def read_identity_token(token: str) -> str:
    return str(_load(token, "local-identity", settings.WORKER_IDENTITY_MAX_AGE)["w"])


def assignment_token(assignment_id: int, worker_external_id: str) -> str:
    return _dump({"a": assignment_id, "w": worker_external_id}, "assignment")


def read_assignment_token(token: str) -> AssignmentClaim:
    data = _load(token, "assignment", settings.WORKER_TOKEN_MAX_AGE)
    return AssignmentClaim(int(data["a"]), str(data["w"]))


def preview_token(hit_id: int) -> str:
    return _dump_permanent({"h": hit_id}, "preview")


def read_preview_token(token: str) -> int:
    return int(_load(token, "preview", None)["h"])


@dataclass(frozen=True)
class SessionClaim:
    submission_id: str
    participant_id: str


def session_token(submission_id: str, participant_id: str) -> str:
    """A Prolific session's continue link: the submission (SESSION_ID) and the participant it belongs to."""
    return _dump({"s": submission_id, "p": participant_id}, "prolific-session")


def read_session_token(token: str) -> SessionClaim:
    data = _load(token, "prolific-session", settings.WORKER_TOKEN_MAX_AGE)
    return SessionClaim(str(data["s"]), str(data["p"]))
