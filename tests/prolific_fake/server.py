"""The fake Prolific over HTTP: a WSGI app speaking the documented endpoints (paths under /api/v1/, with or
without their trailing slash), served by a threaded stdlib server on 127.0.0.1.

Each request: logged (`state.calls`), then an injected fault may take it (`state.fail`), then the token is
checked (401 otherwise), effects that happen "shortly after" an earlier call settle, and the route answers.
A response is written only once complete, so a "reset" fault can drop it after the work is done: the
client sees a reset connection, exactly like an answer lost on the network."""
from __future__ import annotations

import io
import json
import re
import socket
import socketserver
import struct
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer

from .state import EVENT_TYPES, ApiError, Call, FakeProlific, normalise_path

FLAGS_KEY = "prolific_fake.flags"  # a dict shared with the handler (wsgiref copies the environ)


@dataclass
class Ctx:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    base: str  # http://host:port/api/v1/
    args: dict[str, str] = field(default_factory=dict)


@dataclass
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    empty: bool = False

    def encoded(self) -> bytes:
        return b"" if self.empty else json.dumps(self.body).encode()


Handler = Callable[[Ctx], Reply]
REASONS = {200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
           403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 429: "Too Many Requests",
           500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}


def _int(ctx: Ctx, name: str, default: int, low: int) -> int:
    text = ctx.query.get(name)
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ApiError(400, {name: ["A valid integer is required."]}) from None
    if value < low:
        raise ApiError(400, {name: [f"Ensure this value is greater than or equal to {low}."]})
    return value


def _href(ctx: Ctx, **changes: Any) -> str:
    query = {**ctx.query, **{k: str(v) for k, v in changes.items()}}
    return f"{ctx.base}{ctx.path}/?{urlencode(query)}"


def limit_offset(state: FakeProlific, ctx: Ctx, items: list[Any]) -> Reply:
    """`{"results", "_links": {self, next, previous, last}, "meta": {"count"}}` (CLI `JSONAPILinks`)."""
    limit = min(_int(ctx, "limit", state.default_page_size, 1), state.max_page_size)
    offset = _int(ctx, "offset", 0, 0)
    count = len(items)
    nxt = _href(ctx, limit=limit, offset=offset + limit) if offset + limit < count else None
    prev = _href(ctx, limit=limit, offset=max(0, offset - limit)) if offset > 0 else None
    last = _href(ctx, limit=limit, offset=max(0, (count - 1) // limit * limit))
    return Reply(200, {"results": items[offset:offset + limit], "_links": {
        "self": {"href": _href(ctx, limit=limit, offset=offset), "title": "Current page"},
        "next": {"href": nxt, "title": "Next page"},
        "previous": {"href": prev, "title": "Previous page"},
        "last": {"href": last, "title": "Last page"},
    }, "meta": {"count": count}})


def page_number(state: FakeProlific, ctx: Ctx, items: list[Any]) -> Reply:
    """`{"count", "next", "previous", "results"}`, paged by page and page_size (default 20)."""
    size = min(_int(ctx, "page_size", state.default_page_size, 1), state.max_page_size)
    page = _int(ctx, "page", 1, 1)
    count = len(items)
    if page > 1 and (page - 1) * size >= count:
        raise ApiError(404, "Invalid page.", simple=True)
    nxt = _href(ctx, page=page + 1, page_size=size) if page * size < count else None
    prev = _href(ctx, page=page - 1, page_size=size) if page > 1 else None
    return Reply(200, {"count": count, "next": nxt, "previous": prev,
                       "results": items[(page - 1) * size:page * size]})


class Router:
    def __init__(self) -> None:
        self.routes: list[tuple[str, re.Pattern[str], Handler]] = []

    def add(self, method: str, pattern: str) -> Callable[[Handler], Handler]:
        regex = re.compile("/".join(f"(?P<{p[1:-1]}>[^/]+)" if p.startswith("{") else re.escape(p)
                                    for p in pattern.split("/")))

        def register(handler: Handler) -> Handler:
            self.routes.append((method, regex, handler))
            return handler

        return register

    def dispatch(self, ctx: Ctx) -> Reply:
        allowed = False
        for method, regex, handler in self.routes:
            match = regex.fullmatch(ctx.path)
            if match is None:
                continue
            allowed = True
            if method == ctx.method:
                ctx.args = match.groupdict()
                return handler(ctx)
        if allowed:
            raise ApiError(405, f"Method {ctx.method} not allowed on /{ctx.path}/.")
        raise ApiError(404, f"No endpoint /api/v1/{ctx.path}/ on this (fake) Prolific.")


def build_router(state: FakeProlific) -> Router:
    r = Router()

    def body_dict(ctx: Ctx) -> dict[str, Any]:
        if not isinstance(ctx.body, dict):
            raise ApiError(400, "A JSON object body is required.")
        return ctx.body

    @r.add("GET", "users/me")
    def me(ctx: Ctx) -> Reply:
        return Reply(200, {"id": state.workspace_id, "email": "researcher@example.org", "name": "Fake Researcher",
                           "currency_code": state.currency, "balance": state.balance,
                           "available_balance": state.balance})

    # ---- studies ---------------------------------------------------------------------------------------
    @r.add("GET", "studies")
    def list_studies(ctx: Ctx) -> Reply:
        with state.lock:
            items = [state.study_json(s) for s in state.studies.values()]
        return limit_offset(state, ctx, items)

    @r.add("POST", "studies")
    def create_study(ctx: Ctx) -> Reply:
        return Reply(201, state.create_study(ctx.body))

    @r.add("POST", "workspaces/{workspace}/projects")
    def create_project(ctx: Ctx) -> Reply:
        if ctx.args["workspace"] != state.workspace_id:
            raise ApiError(404, f"Workspace {ctx.args['workspace']} not found.")
        data = body_dict(ctx)
        project = state.new_id()
        with state.lock:
            state.project_ids.add(project)
        return Reply(201, {"id": project, "title": data.get("title", ""), "workspace": state.workspace_id})

    @r.add("GET", "projects/{project}/studies")
    def project_studies(ctx: Ctx) -> Reply:
        with state.lock:
            items = [state.study_json(s) for s in state.studies.values() if s.get("project") == ctx.args["project"]]
        return limit_offset(state, ctx, items)

    @r.add("GET", "studies/{id}")
    def get_study(ctx: Ctx) -> Reply:
        with state.lock:
            return Reply(200, state.study_json(state.study(ctx.args["id"])))

    @r.add("PATCH", "studies/{id}")
    def patch_study(ctx: Ctx) -> Reply:
        return Reply(200, state.update_study(ctx.args["id"], ctx.body))

    @r.add("DELETE", "studies/{id}")
    def delete_study(ctx: Ctx) -> Reply:
        state.delete_study(ctx.args["id"])
        return Reply(204, empty=True)

    @r.add("POST", "studies/{id}/transition")
    def transition_study(ctx: Ctx) -> Reply:
        return Reply(200, state.transition_study(ctx.args["id"], ctx.body))

    @r.add("GET", "studies/{id}/submissions")
    def study_submissions(ctx: Ctx) -> Reply:
        with state.lock:
            state.study(ctx.args["id"])
            items = [state.submission_item(s) for s in state.study_submissions(ctx.args["id"])]
        return limit_offset(state, ctx, items)

    @r.add("GET", "studies/{id}/submissions/counts")
    def submission_counts(ctx: Ctx) -> Reply:
        with state.lock:
            state.study(ctx.args["id"])
            subs = state.study_submissions(ctx.args["id"])
        counts = {status: sum(1 for s in subs if s.status == status)
                  for status in ("ACTIVE", "APPROVED", "AWAITING REVIEW", "REJECTED", "RETURNED", "TIMED-OUT")}
        return Reply(200, {**counts, "TOTAL": len(subs)})

    @r.add("POST", "study-cost-calculator")
    def cost(ctx: Ctx) -> Reply:
        data = body_dict(ctx)
        return Reply(200, state.study_cost(data.get("reward"), data.get("total_available_places")))

    # ---- submissions -----------------------------------------------------------------------------------
    @r.add("GET", "submissions")
    def list_submissions(ctx: Ctx) -> Reply:
        wanted = ctx.query.get("status", "").upper().replace("_", " ").replace("TIMED OUT", "TIMED-OUT")
        with state.lock:
            subs = [s for s in state.submissions.values()
                    if (not ctx.query.get("study") or s.study_id == ctx.query["study"])
                    and (not wanted or s.status == wanted)]
            items = [state.submission_item(s, with_study=True) for s in subs]
        return page_number(state, ctx, items)

    @r.add("POST", "submissions/bulk-approve")
    def bulk_approve(ctx: Ctx) -> Reply:
        return Reply(200, state.bulk_approve(ctx.body))

    @r.add("POST", "submissions/bonus-payments")
    def bonus_setup(ctx: Ctx) -> Reply:
        return Reply(201, state.set_up_bonuses(ctx.body))

    @r.add("GET", "submissions/{id}")
    def get_submission(ctx: Ctx) -> Reply:
        with state.lock:
            return Reply(200, state.submission_single(state.submission(ctx.args["id"])))

    @r.add("POST", "submissions/{id}/transition")
    def transition_submission(ctx: Ctx) -> Reply:
        return Reply(200, state.transition_submission(ctx.args["id"], ctx.body))

    @r.add("POST", "bulk-bonus-payments/{id}/pay")
    def pay(ctx: Ctx) -> Reply:
        state.pay_bonuses(ctx.args["id"])
        return Reply(202, empty=True)

    # ---- participant groups ------------------------------------------------------------------------------
    @r.add("POST", "participant-groups")
    def create_group(ctx: Ctx) -> Reply:
        return Reply(201, state.create_group(ctx.body))

    @r.add("GET", "participant-groups")
    def list_groups(ctx: Ctx) -> Reply:
        workspace = ctx.query.get("workspace_id")
        with state.lock:
            items = [state.group_json(g) for g in state.groups.values()
                     if not workspace or g.workspace_id == workspace]
        return limit_offset(state, ctx, items)

    @r.add("GET", "participant-groups/{id}")
    def get_group(ctx: Ctx) -> Reply:
        with state.lock:
            return Reply(200, state.group_json(state.group(ctx.args["id"])))

    @r.add("GET", "participant-groups/{id}/participants")
    def group_members(ctx: Ctx) -> Reply:
        with state.lock:
            items = state.members_json(state.group(ctx.args["id"]))
        return limit_offset(state, ctx, items)

    @r.add("POST", "participant-groups/{id}/participants")
    def add_members(ctx: Ctx) -> Reply:
        return Reply(200, {"results": state.add_to_group(ctx.args["id"], ctx.body)})

    @r.add("DELETE", "participant-groups/{id}/participants")
    def remove_members(ctx: Ctx) -> Reply:
        return Reply(200, {"results": state.remove_from_group(ctx.args["id"], ctx.body)})

    # ---- messages, workspace, filters --------------------------------------------------------------------
    @r.add("POST", "messages/bulk")
    def bulk_message(ctx: Ctx) -> Reply:
        state.send_bulk_message(ctx.body)
        return Reply(204, empty=True)

    @r.add("POST", "messages")
    def message(ctx: Ctx) -> Reply:
        state.send_message(ctx.body)
        return Reply(204, empty=True)

    @r.add("GET", "workspaces/{id}/balance")
    def balance(ctx: Ctx) -> Reply:
        with state.lock:
            return Reply(200, state.balance_json(ctx.args["id"]))

    @r.add("GET", "filters")
    def filters(ctx: Ctx) -> Reply:
        return limit_offset(state, ctx, state.known_filters())

    # ---- hooks -------------------------------------------------------------------------------------------
    @r.add("GET", "hooks/event-types")
    def event_types(ctx: Ctx) -> Reply:
        return Reply(200, {"results": [{"event_type": k, "description": v} for k, v in EVENT_TYPES.items()]})

    @r.add("GET", "hooks/secrets")
    def list_secrets(ctx: Ctx) -> Reply:
        with state.lock:
            secret = state.hook_secret
            found = [dict(secret)] if secret and ctx.query.get("workspace_id") in (None, secret["workspace_id"]) \
                else []
        return Reply(200, {"results": found})

    @r.add("POST", "hooks/secrets")
    def create_secret(ctx: Ctx) -> Reply:
        return Reply(201, state.create_secret(ctx.body))

    @r.add("GET", "hooks/subscriptions")
    def list_subscriptions(ctx: Ctx) -> Reply:
        workspace, enabled = ctx.query.get("workspace_id"), ctx.query.get("is_enabled")
        with state.lock:
            items = [dict(s) for s in state.subscriptions.values()
                     if (not workspace or s["workspace_id"] == workspace)
                     and (not enabled or s["is_enabled"] == (enabled.lower() in ("true", "1", "yes")))]
        reply = limit_offset(state, ctx, items)
        reply.body.pop("_links")  # the hooks list carries only meta (CLI ListHooksResponse)
        return reply

    @r.add("POST", "hooks/subscriptions")
    def create_subscription(ctx: Ctx) -> Reply:
        sub, secret = state.create_subscription(ctx.body)
        return Reply(201, sub, headers={"X-Hook-Secret": secret})

    @r.add("GET", "hooks/subscriptions/{id}")
    def get_subscription(ctx: Ctx) -> Reply:
        with state.lock:
            return Reply(200, dict(state.subscription(ctx.args["id"])))

    @r.add("POST", "hooks/subscriptions/{id}")
    def confirm_subscription(ctx: Ctx) -> Reply:
        return Reply(200, state.confirm_subscription(ctx.args["id"], ctx.body))

    @r.add("PATCH", "hooks/subscriptions/{id}")
    def update_subscription(ctx: Ctx) -> Reply:
        return Reply(200, state.update_subscription(ctx.args["id"], ctx.body))

    @r.add("DELETE", "hooks/subscriptions/{id}")
    def delete_subscription(ctx: Ctx) -> Reply:
        state.delete_subscription(ctx.args["id"])
        return Reply(204, empty=True)

    return r


def make_app(state: FakeProlific) -> Callable[..., Iterable[bytes]]:
    router = build_router(state)

    def serve(ctx: Ctx, authorization: str, invalid_json: bool) -> Reply:
        if authorization != f"Token {state.token}":
            raise ApiError(401, "Invalid token." if authorization else "Authentication credentials were not "
                                                                        "provided.")
        if invalid_json:
            raise ApiError(400, "JSON parse error: the body is not valid JSON.")
        state.settle()
        return router.dispatch(ctx)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        method = environ["REQUEST_METHOD"].upper()
        path = normalise_path(environ.get("PATH_INFO", ""))
        query = dict(parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True))
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b""
        body: Any = None
        invalid_json = False
        if raw.strip():
            try:
                body = json.loads(raw)
            except ValueError:
                invalid_json = True
        host = environ.get("HTTP_HOST") or f"{environ['SERVER_NAME']}:{environ['SERVER_PORT']}"
        ctx = Ctx(method, path, query, body, f"http://{host}/api/v1/")
        call = Call(method, path, query, body)
        with state.lock:
            state.calls.append(call)
        fault = state.take_fault(method, path)
        kind = fault.kind if fault else ""
        call.fault = kind
        if kind in ("429", "500", "502", "503", "504"):
            status = int(kind)
            error = ApiError(status, "Injected fault: please retry." if status == 429 else "Injected server error.")
            reply = Reply(status, error.body(), headers={"Retry-After": "0"} if status == 429 else {})
        elif kind == "timeout":
            state.stopping.wait(state.hang_seconds)
            reply = Reply(504, ApiError(504, "Injected timeout.").body())
        elif kind == "reset_before":
            environ[FLAGS_KEY]["reset"] = True
            reply = Reply(204, empty=True)
        else:
            try:
                reply = serve(ctx, environ.get("HTTP_AUTHORIZATION", ""), invalid_json)
            except ApiError as exc:
                reply = Reply(exc.status, exc.body(), headers=exc.headers)
            except Exception:  # a bug of the fake: visible in the answer and in state.internal_errors
                text = traceback.format_exc()
                state.internal_errors.append(text)
                reply = Reply(500, ApiError(500, f"Fake server error: {text[-800:]}").body())
            if kind == "timeout_after":
                state.stopping.wait(state.hang_seconds)
            elif kind == "reset":
                environ[FLAGS_KEY]["reset"] = True
        call.status = reply.status
        payload = reply.encoded()
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))]
        headers += list(reply.headers.items())
        start_response(f"{reply.status} {REASONS.get(reply.status, 'Status')}", headers)
        return [payload]

    return app


class _RequestHandler(WSGIRequestHandler):
    """wsgiref's handler, with the whole answer buffered so that it can be dropped (connection reset)."""

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def handle(self) -> None:
        self.raw_requestline = self.rfile.readline(65537)
        if len(self.raw_requestline) > 65536 or not self.raw_requestline:
            return
        if not self.parse_request():
            return
        environ = self.get_environ()
        flags: dict[str, bool] = {}
        environ[FLAGS_KEY] = flags
        out = io.BytesIO()
        handler = ServerHandler(self.rfile, out, io.StringIO(), environ, multithread=True)
        handler.request_handler = self  # type: ignore[attr-defined]
        handler.run(self.server.get_app())  # type: ignore[attr-defined]
        if flags.get("reset"):
            self._reset()
            return
        try:
            self.wfile.write(out.getvalue())
            self.wfile.flush()
        except OSError:
            pass  # the client gave up (a hang past its timeout)

    def _reset(self) -> None:
        """Close with SO_LINGER 0: the kernel answers with RST, the client reads "connection reset"."""
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.rfile.close()
        self.connection.close()


class _Server(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # no reverse DNS lookup (HTTPServer.server_bind does one)
        self.server_name = "127.0.0.1"
        self.server_port = self.server_address[1]
        self.setup_environ()

    def handle_error(self, request: Any, client_address: Any) -> None:
        return None  # a client that went away; the fake's own errors are answered as 500s


class FakeProlificServer:
    """Serves `state` on 127.0.0.1 (a free port unless given) in a background thread."""

    def __init__(self, state: FakeProlific, host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = state
        self.host = host
        self.httpd = _Server((host, port), _RequestHandler)
        self.httpd.set_app(make_app(state))
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       name="fake-prolific", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.httpd.server_address[1]}/api/v1/"

    def start(self) -> FakeProlificServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.state.stopping.set()  # wakes requests hanging on an injected timeout
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> FakeProlificServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
