"""``/mcp``: OpsAgent as an MCP server (streamable HTTP, official MCP Python SDK), beside Flask.

    request ──▶ OpsAgentAsgi ──▶ McpEndpoint: Host/Origin policy, API key ──▶ BufferedBody ──▶ MCP SDK
                                 (the same rules as Flask's edges and /v1)      (stateless, JSON responses)

The SDK's low-level ``Server`` lists and calls the tools of ``mcp_tools.McpCatalogue``; its
``StreamableHTTPSessionManager`` runs *stateless* with JSON responses: every POST is complete in
itself (no session table, nothing server-initiated), so any worker process can answer any call.
It runs on uvicorn's loop; the work hops to the app's loop thread (``LoopThread.run``). The
manager must be running for the server's lifetime: ``OpsAgentAsgi``'s lifespan enters
``lifespan()``. The SDK's own DNS-rebinding check is off because ours (``edges``, with
``ALLOWED_HOSTS``/``ALLOWED_ORIGINS``) runs first and knows the deployment's host names.

Why not MAF's ``Agent.as_mcp_server()``: it publishes one tool (the agent, taking ``task``) without
annotations, so neither the typed read-only tools nor a workflow answer could be offered.
"""

from __future__ import annotations

import logging
import time
import uuid
from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp.types as types
from flask import Flask
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from opsagent.errors import RequestError
from opsagent.service.auth import check_api_key
from opsagent.service.buffering import SANE_REQUEST_ID, BufferedBody, Message, Receive, Scope, Send, send_json_error
from opsagent.service.chats import default_workflow
from opsagent.service.edges import UNSAFE_METHODS, is_allowed_host, is_allowed_origin, is_json, raw_security_headers
from opsagent.service.mcp_tools import McpCatalogue
from opsagent.service.requestlog import REQUEST_ID
from opsagent.service.scope import ARRIVED_AT
from opsagent.service.state import get_state

logger = logging.getLogger("opsagent.service.requestlog")
"""The request log's logger: MCP requests get the same one line per request as Flask's."""

MCP_PATH = "/mcp"
INSTRUCTIONS = (
    "OpsAgent reads ServiceNow incidents and change requests, Azure Data Factory pipeline runs (Log Analytics) and "
    "Databricks/Snowflake/Azure health. Every tool is read-only. Use the list_/get_/check_ tools for one system, "
    "and ask_opsagent for a question that spans systems; its answer is checked against the data it cites."
)


def _header(scope: Scope, name: bytes) -> str | None:
    value = next((value for key, value in scope.get("headers", []) if key == name), None)
    return None if value is None else value.decode("latin-1")


class McpEndpoint:
    """The ASGI app served at ``/mcp``, for one Flask app (its settings, runtime, loop and admission)."""

    def __init__(self, flask_app: Flask) -> None:
        state = get_state(flask_app)
        self.settings = state.settings
        self.catalogue = McpCatalogue.for_state(state, default_workflow=default_workflow(state))
        server: Server[Any] = Server("opsagent", instructions=INSTRUCTIONS,
                                     on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        self.manager = StreamableHTTPSessionManager(
            app=server, stateless=True, json_response=True,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=self.settings.max_request_bytes)
        self._transport = BufferedBody(self.manager.handle_request, max_bytes=self.settings.max_request_bytes,
                                       read_timeout=self.settings.request_read_timeout_seconds)

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        """The SDK's task group; requests fail without it, and it can run once per endpoint."""
        return self.manager.run()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            self._check_edges(scope)
        except RequestError as error:
            extra = {401: [(b"www-authenticate", b"Bearer")], 405: [(b"allow", b"POST")]}.get(error.status, [])
            await send_json_error(scope, send, error.status, error.code, error.message, headers=extra)
            logger.info("%s %s %s", scope["method"], scope["path"], error.status,
                        extra={"method": scope["method"], "path": scope["path"], "status": error.status})
            return
        incoming = (_header(scope, b"x-request-id") or "").encode("latin-1")
        request_id = incoming.decode() if SANE_REQUEST_ID.match(incoming) else uuid.uuid4().hex
        token = REQUEST_ID.set(request_id)
        status: list[int] = []
        try:
            await self._transport(scope, receive, _noting(send, request_id, status))
        finally:
            REQUEST_ID.reset(token)
            took = round((time.monotonic() - scope.get(ARRIVED_AT, time.monotonic())) * 1000, 1)
            logger.info("%s %s %s", scope["method"], scope["path"], status[0] if status else "-",
                        extra={"request_id": request_id, "method": scope["method"], "path": scope["path"],
                               "status": status[0] if status else None, "duration_ms": took})

    def _check_edges(self, scope: Scope) -> None:
        """The rules Flask's edges and ``/v1`` apply, for requests that never reach Flask.

        Raises:
            RequestError: 404 off the endpoint's path, 405 for anything but POST (stateless: no GET stream, no
                session to DELETE), 403 for a Host or Origin not served, 401 without a key, 415 for a body that
                is not declared JSON.
        """
        if scope["path"] != MCP_PATH:
            raise RequestError(404, "not_found", f"No such endpoint: {scope['path']} (the MCP endpoint is {MCP_PATH}).")
        if scope["method"] != "POST":
            raise RequestError(405, "method_not_allowed", f"{MCP_PATH} answers POST only (a stateless MCP server "
                               "offers no GET stream and no session to DELETE).")
        host = _header(scope, b"host") or ""
        if not is_allowed_host(host, self.settings):
            raise RequestError(403, "host_not_allowed", f"The Host header {host!r} is not served here; set "
                               "ALLOWED_HOSTS to serve it.")
        if scope["method"] in UNSAFE_METHODS and not is_allowed_origin(_header(scope, b"origin"), host, self.settings):
            raise RequestError(403, "cross_site_request", "Cross-site requests are refused; add the page's origin to "
                               "ALLOWED_ORIGINS to allow it.")
        check_api_key(_header(scope, b"authorization"), self.settings.opsagent_api_keys)
        mimetype = (_header(scope, b"content-type") or "").split(";", 1)[0].strip().lower()
        if not is_json(mimetype):
            raise RequestError(415, "unsupported_media_type", f"Send the body as JSON with 'Content-Type: "
                               f"application/json' (got {mimetype or 'none'!r}).")

    async def _list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                          ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.catalogue.listing())

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                         ) -> types.CallToolResult:
        return await self.catalogue.call(params.name, dict(params.arguments or {}))


def _noting(send: Send, request_id: str, status: list[int]) -> Send:
    """The SDK's responses get the headers every response of the service carries (and the request id);
    their status is noted for the log line."""
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
            present = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(name, value) for name, value in [*raw_security_headers(), (b"x-request-id", request_id.encode())]
                     if name not in present]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending
