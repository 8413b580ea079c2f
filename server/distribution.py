"""The bridges, served by komasync itself: install in one click, update from the same place.

- `GET /foundry/module.json` — the Foundry module's manifest with `url`, `bugs`,
  `changelog`, `manifest` and `download` pointing at this server; `GET
  /foundry/komasync-foundry.zip` — the module folder zipped on the fly, that manifest at
  its top (what Foundry installs); `GET /foundry/{README.md,CHANGELOG.md,LICENSE}`.
- `GET /ccfolia/komasync.user.js` — the Ccfolia userscript with `@downloadURL` and
  `@updateURL` added to its header and this server as the bridge's default server, so a
  userscript manager installs it from the link and updates it when komasync updates;
  `GET /ccfolia/komasync.meta.js` — its header alone (what managers poll for `@version`);
  `GET /ccfolia/README.md` — the install steps.
- `GET /api/links` — those URLs and the WebSocket URL, for the GM console.

Every URL is built from the server's public address: `komasync serve --public-url`
(what browsers and the Foundry server reach, e.g. `https://komasync.example.org` behind a
TLS proxy), else the address the request came to. Nothing names a fixed host.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

__all__ = [
    "META_NAME",
    "PUBLIC_URL",
    "SERVED_FROM_LINE",
    "USERSCRIPT_NAME",
    "ZIP_NAME",
    "add_routes",
    "base_url",
    "check_public_url",
    "configure",
    "links",
    "module_dir",
    "module_manifest",
    "module_zip",
    "userscript",
    "userscript_meta",
    "userscript_path",
]

ZIP_NAME = "komasync-foundry.zip"
USERSCRIPT_NAME = "komasync.user.js"
META_NAME = "komasync.meta.js"
#: The one line of the built userscript the server fills in (adapters/ccfolia/build.mjs).
SERVED_FROM_LINE = "const KOMASYNC_SERVED_FROM = null;"
MODULE_FILES = ("README.md", "CHANGELOG.md", "LICENSE")
PUBLIC_URL: web.AppKey[str] = web.AppKey("komasync_public_url", str)
_HEADER_END = "// ==/UserScript=="


def check_public_url(url: str) -> str:
    """`url` without a trailing slash, or ValueError (http(s), a host, no query or fragment)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"not an http(s)://host[:port][/path] address: {url!r}")
    return url.strip().rstrip("/")


def configure(app: web.Application, public_url: str | None) -> None:
    """Use `public_url` for every URL handed out (before the app starts)."""
    if public_url:
        app[PUBLIC_URL] = check_public_url(public_url)


def base_url(request: web.Request) -> str:
    """The server's public address: the configured one, else where this request came to."""
    configured = request.app.get(PUBLIC_URL)
    return configured or f"{request.scheme}://{request.host}"


def links(base: str) -> dict[str, str]:
    """Every URL a GM needs, from the public address."""
    ws = re.sub(r"^http", "ws", base) + "/ws"
    return {"public_url": base, "ws": ws, "console": base + "/",
            "userscript": f"{base}/ccfolia/{USERSCRIPT_NAME}",
            "userscript_meta": f"{base}/ccfolia/{META_NAME}",
            "foundry_manifest": f"{base}/foundry/module.json"}


# -- Foundry ---------------------------------------------------------------------------------


def module_dir() -> Path:
    return Path(str(resources.files("komasync.adapters.foundry") / "module"))


def module_manifest(base: str) -> dict[str, Any]:
    """module.json with its URLs pointing at `base` (this server, as the GM reaches it)."""
    manifest: dict[str, Any] = json.loads((module_dir() / "module.json").read_text("utf-8"))
    manifest["url"] = f"{base}/foundry/README.md"
    manifest["bugs"] = f"{base}/foundry/README.md#problems"
    manifest["changelog"] = f"{base}/foundry/CHANGELOG.md"
    manifest["manifest"] = f"{base}/foundry/module.json"
    manifest["download"] = f"{base}/foundry/{ZIP_NAME}"
    return manifest


def module_zip(base: str) -> bytes:
    """The module folder as a zip, its manifest rewritten for this server."""
    root = module_dir()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            name = path.relative_to(root).as_posix()
            if name == "module.json":
                zf.writestr(name, json.dumps(module_manifest(base), ensure_ascii=False, indent=2))
            else:
                zf.write(path, name)
    return out.getvalue()


# -- the Ccfolia userscript ------------------------------------------------------------------


def userscript_path() -> Path:
    return Path(str(resources.files("komasync.adapters.ccfolia") / "komasync-ccfolia.user.js"))


def userscript(base: str) -> str:
    """The userscript as served from `base`: update URLs in its header, `base` its server."""
    text = userscript_path().read_text("utf-8")
    end = text.index(_HEADER_END)
    urls = links(base)
    extra = (f"// @downloadURL  {urls['userscript']}\n"
             f"// @updateURL    {urls['userscript_meta']}\n"
             f"// @homepageURL  {urls['console']}\n"
             f"// @supportURL   {base}/ccfolia/README.md\n")
    text = text[:end] + extra + text[end:]
    if text.count(SERVED_FROM_LINE) != 1:
        raise RuntimeError("the built userscript has no single served-from line: rebuild it")
    return text.replace(SERVED_FROM_LINE, f"const KOMASYNC_SERVED_FROM = {json.dumps(base)};")


def userscript_meta(base: str) -> str:
    """The header block of the served userscript (a manager polls it for `@version`)."""
    text = userscript(base)
    return text[: text.index(_HEADER_END) + len(_HEADER_END)] + "\n"


# -- routes ----------------------------------------------------------------------------------

_CORS = {"Access-Control-Allow-Origin": "*"}
_NO_CACHE = {"Cache-Control": "no-cache"}


async def _manifest(request: web.Request) -> web.Response:
    return web.json_response(module_manifest(base_url(request)), headers=_CORS)


async def _zip(request: web.Request) -> web.Response:
    return web.Response(body=module_zip(base_url(request)), content_type="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{ZIP_NAME}"',
                                 **_CORS})


async def _module_file(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in MODULE_FILES:
        raise web.HTTPNotFound()
    kind = "text/markdown" if name.endswith(".md") else "text/plain"
    return web.Response(text=(module_dir() / name).read_text("utf-8"), content_type=kind,
                        headers=_CORS)


async def _userscript(request: web.Request) -> web.Response:
    return web.Response(text=userscript(base_url(request)), content_type="text/javascript",
                        headers=_NO_CACHE)


async def _userscript_meta(request: web.Request) -> web.Response:
    return web.Response(text=userscript_meta(base_url(request)), content_type="text/javascript",
                        headers=_NO_CACHE)


async def _ccfolia_readme(request: web.Request) -> web.Response:
    readme = userscript_path().with_name("README.md").read_text("utf-8")
    return web.Response(text=readme, content_type="text/markdown")


async def _links(request: web.Request) -> web.Response:
    return web.json_response({**links(base_url(request)),
                              "configured": request.app.get(PUBLIC_URL) is not None})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/foundry/module.json", _manifest)
    app.router.add_get(f"/foundry/{ZIP_NAME}", _zip)
    app.router.add_get("/foundry/{name}", _module_file)
    app.router.add_get(f"/ccfolia/{USERSCRIPT_NAME}", _userscript)
    app.router.add_get(f"/ccfolia/{META_NAME}", _userscript_meta)
    app.router.add_get("/ccfolia/README.md", _ccfolia_readme)
    app.router.add_get("/api/links", _links)
