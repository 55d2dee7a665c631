"""A minimal Hugging Face Hub on 127.0.0.1 for tests: just the routes huggingface_hub 2.4.0 calls to create a
dataset repo, upload a folder through the LFS protocol (hf_xet disabled), list its tree and download it.

Routes: POST /api/repos/create; GET /api/datasets/<id>/tree/<rev>[/<path>]; GET /api/datasets/<id>/revision/<rev>;
POST /api/datasets/<id>/preupload/<rev>; POST /datasets/<id>.git/info/lfs/objects/batch; PUT /lfs-upload/<oid>;
POST /api/datasets/<id>/commit/<rev>; HEAD/GET /datasets/<id>/resolve/<rev>/<path>.
Every request is logged (method, path, whether the expected bearer token came with it) for assertions.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


def _git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    files: dict[str, bytes] = field(default_factory=dict)
    lfs_paths: set[str] = field(default_factory=set)
    commits: list[str] = field(default_factory=lambda: ["0" * 40])


class LocalHub:
    def __init__(self, token: str):
        self.token = token
        self.repos: dict[str, Repo] = {}
        self.lfs_store: dict[str, bytes] = {}
        self.log: list[tuple[str, str, bool]] = []
        self.bodies: list[bytes] = []  # every request body, to prove the token never travels in one
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "LocalHub":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    # ---- route logic ------------------------------------------------------------------------------
    def _tree(self, repo: Repo, prefix: str) -> list[dict]:
        entries, dirs = [], set()
        for path, data in sorted(repo.files.items()):
            if prefix and not path.startswith(prefix.rstrip("/") + "/"):
                continue
            parts = path.split("/")
            for i in range(1, len(parts)):
                dirs.add("/".join(parts[:i]))
            entry = {"type": "file", "oid": _git_blob_sha(data), "size": len(data), "path": path}
            if path in repo.lfs_paths:
                entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 130}
            entries.append(entry)
        entries += [{"type": "directory", "oid": "0" * 40, "size": 0, "path": d} for d in sorted(dirs)
                     if not prefix or d.startswith(prefix.rstrip("/") + "/")]
        return entries

    @staticmethod
    def yaml_errors(readme: str) -> list[str]:
        """The subset of the Hub's dataset-card checks the AAC card relies on."""
        import yaml

        if not readme.startswith("---\n"):
            return ["no YAML front matter"]
        meta = yaml.safe_load(readme.split("---\n", 2)[1]) or {}
        errors = []
        if meta.get("license") == "other" and not meta.get("license_name"):
            errors.append('"license_name" is required when "license" is "other"')
        for conf in meta.get("configs", []):
            if not conf.get("config_name") or not conf.get("data_files"):
                errors.append(f"config {conf!r} needs config_name and data_files")
        return errors

    def _commit(self, rid: str, repo: Repo, body: bytes) -> dict:
        summary = ""
        for line in body.decode().splitlines():
            if not line.strip():
                continue
            op = json.loads(line)
            key, value = op["key"], op["value"]
            if key == "header":
                summary = value.get("summary", "")
            elif key == "file":
                repo.files[value["path"]] = base64.b64decode(value["content"])
                repo.lfs_paths.discard(value["path"])
            elif key == "lfsFile":
                repo.files[value["path"]] = self.lfs_store[value["oid"]]
                repo.lfs_paths.add(value["path"])
            elif key == "deletedFile":
                repo.files.pop(value["path"], None)
            elif key == "deletedFolder":
                for p in [p for p in repo.files if p.startswith(value["path"].rstrip("/") + "/")]:
                    repo.files.pop(p)
        sha = hashlib.sha1((repo.commits[-1] + summary + str(sorted(repo.files))).encode()).hexdigest()
        repo.commits.append(sha)
        return {"commitUrl": f"{self.url}/datasets/{rid}/commit/{sha}", "commitOid": sha, "commitMessage": summary}

    def _handler(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def _send(self, code: int, payload=None, headers: dict | None = None, raw: bytes | None = None) -> None:
                data = raw if raw is not None else (json.dumps(payload).encode() if payload is not None else b"")
                self.send_response(code)
                self.send_header("Content-Type", "application/json" if raw is None else "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def _authed(self) -> bool:
                return self.headers.get("Authorization") == f"Bearer {hub.token}"

            def _body(self) -> bytes:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                hub.bodies.append(body)
                return body

            def _route(self) -> None:
                path = unquote(urlsplit(self.path).path)
                with hub._lock:
                    hub.log.append((self.command, path, self._authed()))
                body = self._body() if self.command in ("POST", "PUT") else b""
                # /lfs-upload/ stands for the pre-signed storage URL the batch answer hands out: no bearer there
                write = self.command in ("POST", "PUT") and not path.startswith("/lfs-upload/")
                if write and not self._authed():
                    return self._send(401, {"error": "Invalid credentials"}, {"X-Error-Code": "Unauthorized"})
                with hub._lock:
                    return self._dispatch(path, body)

            def _dispatch(self, path: str, body: bytes) -> None:
                if path == "/api/repos/create" and self.command == "POST":
                    req = json.loads(body)
                    rid = f"{req['organization']}/{req['name']}" if req.get("organization") else req["name"]
                    if rid in hub.repos:
                        return self._send(409, {"error": "You already created this dataset repo", "url": f"{hub.url}/datasets/{rid}"})
                    hub.repos[rid] = Repo()
                    return self._send(200, {"url": f"{hub.url}/datasets/{rid}", "name": rid})
                if path == "/api/validate-yaml" and self.command == "POST":
                    errors = hub.yaml_errors(json.loads(body)["content"])
                    return self._send(400 if errors else 200, {"errors": [{"message": e} for e in errors], "warnings": []})
                if m := re.fullmatch(r"/lfs-upload/([0-9a-f]{64})", path):
                    data = body
                    if hashlib.sha256(data).hexdigest() != m.group(1):
                        return self._send(400, {"error": "sha256 mismatch"})
                    hub.lfs_store[m.group(1)] = data
                    return self._send(200, {})
                if m := re.fullmatch(r"/datasets/([^/]+/[^/]+)\.git/info/lfs/objects/batch", path):
                    req = json.loads(body)
                    objs = []
                    for o in req["objects"]:
                        entry = {"oid": o["oid"], "size": o["size"], "authenticated": True}
                        if o["oid"] not in hub.lfs_store:
                            entry["actions"] = {"upload": {"href": f"{hub.url}/lfs-upload/{o['oid']}"}}
                        objs.append(entry)
                    return self._send(200, {"transfer": "basic", "objects": objs})
                m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/(tree|revision|preupload|commit)/([^/]+)(?:/(.*))?", path)
                if m:
                    rid, verb, rev, rest = m.groups()
                    repo = hub.repos.get(rid)
                    if repo is None:
                        return self._send(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
                    if verb == "tree":
                        return self._send(200, hub._tree(repo, rest or ""))
                    if verb == "revision":
                        return self._send(200, {"id": rid, "sha": repo.commits[-1], "private": False, "disabled": False,
                                                "gated": False, "downloads": 0, "likes": 0, "tags": [],
                                                "siblings": [{"rfilename": p} for p in sorted(repo.files)]})
                    if verb == "preupload":
                        files = json.loads(body)["files"]
                        return self._send(200, {"files": [
                            {"path": f["path"], "shouldIgnore": False,
                             "uploadMode": "lfs" if f["path"].endswith(".parquet") else "regular"} for f in files]})
                    if verb == "commit":
                        return self._send(200, hub._commit(rid, repo, body))
                m = re.fullmatch(r"/datasets/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
                if m and self.command in ("GET", "HEAD"):
                    rid, rev, fpath = m.groups()
                    repo = hub.repos.get(rid)
                    if repo is None or fpath not in repo.files:
                        return self._send(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"})
                    data = repo.files[fpath]
                    etag = hashlib.sha256(data).hexdigest() if fpath in repo.lfs_paths else _git_blob_sha(data)
                    return self._send(200, raw=data, headers={"X-Repo-Commit": repo.commits[-1], "ETag": f'"{etag}"'})
                return self._send(404, {"error": f"no route {self.command} {path}"})

            do_GET = do_POST = do_PUT = do_HEAD = _route

        return Handler
