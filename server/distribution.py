"""The Foundry module, served by komasync itself: a manifest URL that really installs.

`GET /foundry/module.json` is the module's manifest with `manifest` and `download`
pointing back at this server; `GET /foundry/komasync-foundry.zip` is the module folder
zipped on the fly, with `module.json` at the top as Foundry expects.
"""

from __future__ import annotations

import io
import json
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

__all__ = ["add_routes", "module_dir", "module_manifest", "module_zip"]

ZIP_NAME = "komasync-foundry.zip"


def module_dir() -> Path:
    return Path(str(resources.files("komasync.adapters.foundry") / "module"))


def module_manifest(base_url: str) -> dict[str, Any]:
    """module.json with its URLs pointing at `base_url` (this server, as the GM reaches it)."""
    manifest: dict[str, Any] = json.loads((module_dir() / "module.json").read_text("utf-8"))
    manifest["url"] = base_url + "/"
    manifest["manifest"] = f"{base_url}/foundry/module.json"
    manifest["download"] = f"{base_url}/foundry/{ZIP_NAME}"
    return manifest


def module_zip(base_url: str) -> bytes:
    """The module folder as a zip, its manifest rewritten for this server."""
    root = module_dir()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            name = path.relative_to(root).as_posix()
            if name == "module.json":
                zf.writestr(name, json.dumps(module_manifest(base_url), ensure_ascii=False,
                                             indent=2))
            else:
                zf.write(path, name)
    return out.getvalue()


def _base(request: web.Request) -> str:
    return f"{request.scheme}://{request.host}"


async def _manifest(request: web.Request) -> web.Response:
    return web.json_response(module_manifest(_base(request)),
                             headers={"Access-Control-Allow-Origin": "*"})


async def _zip(request: web.Request) -> web.Response:
    return web.Response(body=module_zip(_base(request)), content_type="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{ZIP_NAME}"',
                                 "Access-Control-Allow-Origin": "*"})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/foundry/module.json", _manifest)
    app.router.add_get(f"/foundry/{ZIP_NAME}", _zip)
