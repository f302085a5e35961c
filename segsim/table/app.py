"""The table's web app (Starlette, served by uvicorn): pages, a JSON API, live updates.

Pages are static shells (``/gm``, ``/play``); a page reads its token from the address's
fragment (``#token=...``, never sent to the server, so never in a log) and sends it in
an ``Authorization: Bearer`` header with every API call. Live updates are server-sent
events (``/api/events``), read with ``fetch`` so that they carry the header too.

Every refusal is a 4xx with ``{"error": message}``: 403 without a valid token or for
another player's fighter, 400 for malformed JSON or fields, 413 for a body over
:data:`MAX_BODY`, 409 for a phase that has closed (two submissions racing: the second),
422 for what the rules refuse (their own message). Nothing refused changes the fight.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib.resources import files
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from segsim.table.data import TableError, load_body
from segsim.table.session import TableSession

MAX_BODY = 64 * 1024
"""The largest request body accepted, in bytes."""

HEARTBEAT = 15.0
"""Seconds between keep-alive comments on an idle event stream."""

_ASSETS = {
    "table.js": "text/javascript; charset=utf-8",
    "table.css": "text/css; charset=utf-8",
}
_PAGES = {"/gm": "gm.html", "/play": "player.html"}
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _asset(name: str) -> str:
    return files("segsim.table").joinpath("static", name).read_text(encoding="utf-8")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=_HEADERS)


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value:
        return value.strip()
    return None


async def _body(request: Request) -> Any:
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise TableError(400, "a bad Content-Length")
        if len(length) > 12 or int(length) > MAX_BODY:
            raise TableError(413, f"a body of at most {MAX_BODY} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise TableError(413, f"a body of at most {MAX_BODY} bytes")
        chunks.append(chunk)
    body = load_body(b"".join(chunks))
    if not isinstance(body, dict):
        raise TableError(400, "expected a JSON object")
    return body


Handler = Callable[[Request, str], Awaitable[Response]]


def build_app(session: TableSession) -> Starlette:
    """The Starlette app serving ``session``."""

    def guarded(handler: Handler, *, gm: bool = False) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            who = session.role(_token(request))
            if who is None:
                return _error(403, "a valid token is needed (open the link you were given)")
            if gm and who != "gm":
                return _error(403, "the game master's token is needed")
            try:
                return await handler(request, who)
            except TableError as exc:
                return _error(exc.status, exc.message)

        return endpoint

    async def page(request: Request) -> Response:
        return HTMLResponse(_asset(_PAGES[request.url.path]), headers=_HEADERS)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _ASSETS:
            return _error(404, "no such file")
        return Response(_asset(name), media_type=_ASSETS[name], headers=_HEADERS)

    async def index(request: Request) -> Response:
        return HTMLResponse(
            "<!doctype html><title>segsim table</title><p>Open the link you were given "
            "(the game master's or a player's).</p>",
            headers=_HEADERS,
        )

    async def state(request: Request, who: str) -> Response:
        data = session.gm_state() if who == "gm" else session.player_state(who)
        return JSONResponse(data, headers=_HEADERS)

    async def observation(request: Request, who: str) -> Response:
        return JSONResponse(session.observation(who, request.path_params["cid"]), headers=_HEADERS)

    async def declare(request: Request, who: str) -> Response:
        body = await _body(request)
        out = session.declare(who, body.get("fighter"), body.get("phase"), body.get("declarations"))
        return JSONResponse(out, headers=_HEADERS)

    async def close(request: Request, who: str) -> Response:
        body = await _body(request)
        return JSONResponse(session.close(body.get("phase")), headers=_HEADERS)

    async def undo(request: Request, who: str) -> Response:
        body = await _body(request)
        return JSONResponse(session.undo(body.get("phase")), headers=_HEADERS)

    async def branch(request: Request, who: str) -> Response:
        body = await _body(request)
        return JSONResponse(
            session.branch(body.get("segment"), body.get("record")), headers=_HEADERS
        )

    async def die(request: Request, who: str) -> Response:
        body = await _body(request)
        return JSONResponse(
            session.enter_die(body.get("draw"), body.get("value")), headers=_HEADERS
        )

    async def view(request: Request, who: str) -> Response:
        from segsim.views.html import viewer_html

        with session.lock:
            page = viewer_html(session.fight)
        return HTMLResponse(page, headers=_HEADERS)

    async def events(request: Request, who: str) -> Response:
        limit = request.query_params.get("limit", "")
        most = int(limit) if limit.isdigit() and len(limit) < 7 else None

        async def stream() -> AsyncIterator[str]:
            sent = 0
            last = -1
            idle = 0.0
            while most is None or sent < most:
                version = session.version
                if version != last:
                    last = version
                    sent += 1
                    idle = 0.0
                    yield f"data: {json.dumps({'version': version})}\n\n"
                    continue
                await asyncio.sleep(0.05)
                idle += 0.05
                if idle >= HEARTBEAT:
                    idle = 0.0
                    yield ": keep-alive\n\n"

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={**_HEADERS, "X-Accel-Buffering": "no"},
        )

    routes = [
        Route("/", index),
        Route("/gm", page),
        Route("/play", page),
        Route("/static/{name}", asset),
        Route("/api/state", guarded(state)),
        Route("/api/observation/{cid}", guarded(observation)),
        Route("/api/declare", guarded(declare), methods=["POST"]),
        Route("/api/close", guarded(close, gm=True), methods=["POST"]),
        Route("/api/undo", guarded(undo, gm=True), methods=["POST"]),
        Route("/api/branch", guarded(branch, gm=True), methods=["POST"]),
        Route("/api/die", guarded(die, gm=True), methods=["POST"]),
        Route("/api/view", guarded(view, gm=True)),
        Route("/api/events", guarded(events)),
    ]
    app = Starlette(routes=routes)
    app.state.session = session
    return app


__all__ = ["MAX_BODY", "build_app"]
