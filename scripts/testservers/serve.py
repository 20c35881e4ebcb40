#!/usr/bin/env python3
"""Starts one loopback test server for PromiseCurl's tests and benchmarks, prints one JSON line
describing it on stdout, and stops it when the process that started it exits.

Kinds:
  httpbin  httpbin (PyPI) under gunicorn on 127.0.0.1, and on a Unix-domain socket in a
           temporary directory ("unix" in the JSON line)
  nginx    nginx (Debian) on 127.0.0.1: HTTP/1.1, HTTPS + HTTP/2 with a certificate made by a
           CA generated here with openssl, and h2c; static files incl. a large one on request
  faults   a small socket server of ours that misbehaves on purpose (see FaultHandler), also
           as a proxy
  proxy    pproxy (PyPI) on 127.0.0.1: an HTTP and SOCKS5 proxy on one port ("http"), and the
           same asking for the user "user" with the password "s3cret" ("auth")

Only 127.0.0.1 and Unix-domain sockets are ever bound or contacted.

Usage: serve.py KIND --parent PID [--dir DIR] [--big-mib N] [--workers N]
"""
import argparse
import json
import os
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

HOST = "127.0.0.1"


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_for_port(port, child, timeout=30.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if child is not None and child.poll() is not None:
            raise SystemExit(f"serve.py: the server exited with status {child.returncode} before listening on {port}")
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"serve.py: nothing listened on {HOST}:{port} within {timeout} s")


def wait_for_answer(port, child, path, timeout=120.0):
    """Waits until an HTTP GET of path answers 200. A listening socket is not enough: gunicorn's
    master listens before its workers have loaded the application, and a request sent then waits
    for a worker (seconds on a busy machine)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only, never a proxy
    deadline = time.time() + timeout
    while time.time() < deadline:
        if child.poll() is not None:
            raise SystemExit(f"serve.py: the server exited with status {child.returncode} before answering on {port}")
        try:
            with opener.open(f"http://{HOST}:{port}{path}", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"serve.py: {HOST}:{port} did not answer GET {path} within {timeout} s")


def watch_parent(parent, cleanup):
    """Runs cleanup once the parent process is gone (or on SIGTERM/SIGINT)."""
    def stop(*_):
        cleanup()
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while True:
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            stop()
        if os.getppid() != parent:
            stop()
        time.sleep(0.5)


def start_httpbin(args):
    port = free_port()
    directory = tempfile.mkdtemp(prefix="promise-httpbin-")
    unix = os.path.join(directory, "httpbin.sock")
    child = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--bind", f"{HOST}:{port}", "--bind", f"unix:{unix}", "--workers", str(args.workers),
         "--worker-class", "gthread", "--threads", "16", "--log-level", "warning", "--timeout", "120",
         "--preload", "httpbin:app"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for_answer(port, child, "/get")
    return {"http": port, "unix": unix}, [child], directory


def openssl(*arguments, cwd):
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_proxy(args):
    ports = {"http": free_port(), "auth": free_port()}
    child = subprocess.Popen(
        # --auth 0: every connection proves its credentials (pproxy otherwise trusts an address
        # that once did, for 30 days).
        [sys.executable, "-m", "pproxy", "--auth", "0", "-l", f"http+socks5://{HOST}:{ports['http']}",
         "-l", f"http+socks5://{HOST}:{ports['auth']}#user:s3cret"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    for port in ports.values():
        wait_for_port(port, child)
    return ports, [child], None


def make_certificates(directory):
    """A CA, and a server certificate it signed for 127.0.0.1 and localhost."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
            "-days", "2", "-subj", "/CN=swift-promise test CA", cwd=directory)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=127.0.0.1", cwd=directory)
    with open(os.path.join(directory, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "2", "-extfile", "san.ext", cwd=directory)


def start_nginx(args):
    directory = args.dir or tempfile.mkdtemp(prefix="promisecurl-nginx-")
    root = os.path.join(directory, "www")
    os.makedirs(root, exist_ok=True)
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
    with open(os.path.join(root, "small.txt"), "w") as f:
        f.write("hello from nginx\n")
    with open(os.path.join(root, "text.txt"), "w") as f:
        f.write("".join(f"line {i} of a compressible text\n" for i in range(20000)))
    if args.big_mib:
        with open(os.path.join(root, "big.bin"), "wb") as f:
            block = os.urandom(1 << 20)
            for _ in range(args.big_mib):
                f.write(block)
    make_certificates(directory)
    http, https, h2c = free_port(), free_port(), free_port()
    user = "user root;" if os.geteuid() == 0 else ""
    conf = f"""
{user}
worker_processes {args.workers};
daemon off;
error_log {directory}/error.log warn;
pid {directory}/nginx.pid;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    keepalive_requests 10000000;
    keepalive_timeout 120s;
    http2_max_requests 10000000;
    sendfile on;
    gzip on;
    gzip_types text/plain application/json;
    gzip_min_length 100;
    default_type application/octet-stream;
    types {{ text/plain txt; application/json json; }}
    server {{
        listen {HOST}:{http};
        root {root};
        location = /hello {{ default_type text/plain; return 200 "hello\\n"; }}
        location = /event {{ default_type text/event-stream; return 200 "data: hello\\n\\n"; }}
    }}
    server {{
        listen {HOST}:{https} ssl http2;
        ssl_certificate {directory}/server.pem;
        ssl_certificate_key {directory}/server.key;
        root {root};
        location = /hello {{ default_type text/plain; return 200 "hello\\n"; }}
    }}
    server {{
        listen {HOST}:{h2c} http2;
        root {root};
        location = /hello {{ default_type text/plain; return 200 "hello\\n"; }}
    }}
}}
"""
    with open(os.path.join(directory, "nginx.conf"), "w") as f:
        f.write(conf)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    child = subprocess.Popen([nginx, "-p", directory, "-c", os.path.join(directory, "nginx.conf")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    for port in (http, https, h2c):
        wait_for_port(port, child)
    info = {"http": http, "https": https, "h2c": h2c, "ca": os.path.join(directory, "ca.pem"), "root": root}
    cleanup_dir = None if args.dir else directory
    return info, [child], cleanup_dir


class FaultHandler(socketserver.BaseRequestHandler):
    """Misbehaves according to the request path:
    /never        reads the request and never answers
    /reset        announces 1 MiB, sends 1 KiB, then resets the connection (RST)
    /truncated    chunked encoding cut off before the last chunk, then close
    /bad-status   an invalid status line
    /huge-headers 1 MiB of header fields
    /trickle      a 100-byte body, one byte every 100 ms (10 s); /trickle?bytes=N sends N
                  bytes at that pace, so a test that must stop it mid-body can make it
                  outlast any scheduling delay of its own
    /close        closes without sending anything
    /folded       a field folded over ?lines=N continuation lines (obsolete line folding)
    /long-line    one header field of ?bytes=N bytes
    /huge-length  announces a Content-Length of 2^62 (?length=N), sends 3 bytes (?bytes=N),
                  then closes
    /silence      sends a head announcing 100 bytes, then nothing until the client leaves
    /echo         answers with JSON: the method, the target, the raw header lines and the body
    /redirect     answers ?status=N (302 by default) with Location ?to= (percent-decoded,
                  /echo by default);
                  ?cookie=1 adds a Set-Cookie, ?body=N a body of N bytes
    /set-cookie   a 200 with a Set-Cookie
    /no-read      reads the request head, then neither reads nor answers until the client leaves
    /stream       a chunked body of ?bytes=N bytes (byte i is i % 251) in chunks of ?chunk=N
                  (16 KiB by default), as fast as the client reads
    /events       text/event-stream: ?count=N events (3 by default), ?interval=MS apart,
                  numbered after the request's Last-Event-ID (from 1 without one), each with
                  an id, a type and two data lines, after a comment and `retry: 50` (and with
                  ?echo=1 an event of type `request` saying whether Last-Event-ID came); then
                  it closes, or with ?forever=1 sends a comment every 100 ms until the client
                  leaves
    """

    def handle(self):
        sock = self.request
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return
            data += chunk
        method = data.split(b" ", 1)[0].decode("latin-1")
        target = data.split(b" ", 2)[1].decode("latin-1") if data.count(b" ") >= 2 else "/"
        if method == "CONNECT" or target.startswith("http://"):
            self.proxy(sock, method, target, data)
            return
        path, _, query = target.partition("?")
        params = dict(item.partition("=")[::2] for item in query.split("&") if item)
        try:
            if path == "/never":
                while sock.recv(65536):
                    pass
            elif path == "/reset":
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + b"x" * 1024)
                time.sleep(0.05)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                sock.close()
            elif path == "/truncated":
                sock.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n5\r\nwor")
                sock.shutdown(socket.SHUT_RDWR)
            elif path == "/bad-status":
                sock.sendall(b"HTTP/1.1 OK-ISH\r\n\r\n")
                sock.shutdown(socket.SHUT_RDWR)
            elif path == "/huge-headers":
                sock.sendall(b"HTTP/1.1 200 OK\r\n")
                line = b"X-Filler: " + b"f" * 1000 + b"\r\n"
                for _ in range(1024):
                    sock.sendall(line)
                sock.sendall(b"Content-Length: 0\r\n\r\n")
            elif path == "/trickle":
                size = int(params.get("bytes", "100"))
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
                for _ in range(size):
                    sock.sendall(b"t")
                    time.sleep(0.1)
            elif path == "/close":
                sock.shutdown(socket.SHUT_RDWR)
            elif path == "/folded":
                sock.sendall(b"HTTP/1.1 200 OK\r\nX-Folded: start\r\n" + b" a\r\n" * int(params.get("lines", "10"))
                             + b"Content-Length: 2\r\nConnection: close\r\n\r\nok")
            elif path == "/long-line":
                sock.sendall(b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * int(params.get("bytes", "1000"))
                             + b"\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            elif path == "/huge-length":
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % int(params.get("length", str(1 << 62)))
                             + b"a" * int(params.get("bytes", "3")))
                sock.shutdown(socket.SHUT_RDWR)
            elif path == "/silence":
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
                while sock.recv(65536):
                    pass
            elif path == "/echo":
                head, body = read_body(sock, data)
                lines = [line.decode("latin-1") for line in head.split(b"\r\n")[1:]]
                reply = json.dumps({"method": method, "target": target, "lines": lines,
                                    "body": body.decode("latin-1")}).encode()
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                             b"Connection: close\r\n\r\n%s" % (len(reply), reply))
            elif path == "/redirect":
                read_body(sock, data)
                cookie = b"Set-Cookie: session=from-redirect; Path=/\r\n" if params.get("cookie") else b""
                size = int(params.get("body", "0"))
                sock.sendall(b"HTTP/1.1 %d Redirect\r\nLocation: %s\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n"
                             % (int(params.get("status", "302")), urllib.parse.unquote(params.get("to", "/echo")).encode(), cookie, size))
                for _ in range(size // 65536):
                    sock.sendall(b"r" * 65536)
                sock.sendall(b"r" * (size % 65536))
            elif path == "/no-read":
                deadline = time.monotonic() + 120  # the unread bytes hide the client's leaving
                while time.monotonic() < deadline:
                    time.sleep(0.2)
                    try:
                        if sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                            break
                    except BlockingIOError:
                        pass
            elif path == "/stream":
                size, piece = int(params.get("bytes", "1048576")), int(params.get("chunk", "16384"))
                pattern = bytes(i % 251 for i in range(251)) * (piece // 251 + 2)
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                             b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                sent = 0
                while sent < size:
                    count = min(piece, size - sent)
                    start = sent % 251
                    sock.sendall(b"%x\r\n%s\r\n" % (count, pattern[start:start + count]))
                    sent += count
                sock.sendall(b"0\r\n\r\n")
            elif path == "/events":
                last = 0
                sent_id = None
                for line in data.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"last-event-id":
                        sent_id = value.strip()
                        if sent_id.isdigit():
                            last = int(sent_id)
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                             b"Connection: close\r\n\r\n: a comment\nretry: 50\n\n")
                if params.get("echo"):
                    sock.sendall(b"event: request\ndata: %s\n\n" % (b"no Last-Event-ID" if sent_id is None else b"Last-Event-ID '" + sent_id + b"'"))
                for number in range(last + 1, last + 1 + int(params.get("count", "3"))):
                    time.sleep(int(params.get("interval", "0")) / 1000)
                    sock.sendall(b"id: %d\r\nevent: tick\r\ndata: event %d\r\ndata: second line\r\n\r\n" % (number, number))
                while params.get("forever"):
                    time.sleep(0.1)
                    sock.sendall(b": still here\n")
                sock.shutdown(socket.SHUT_RDWR)
            elif path == "/set-cookie":
                sock.sendall(b"HTTP/1.1 200 OK\r\nSet-Cookie: session=from-response; Path=/\r\n"
                             b"Content-Length: 2\r\nConnection: close\r\n\r\nok")
            else:
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        except OSError:
            pass


    def proxy(self, sock, method, target, data):
        """As a proxy, by the host the client asks for: proxy-garbage.test answers a line that is
        not HTTP, proxy-close.test closes without answering, proxy-echo.test answers 200 with
        the request's target and header lines as JSON (for a CONNECT, before any tunnel)."""
        authority = target.split("://", 1)[-1].split("/", 1)[0]
        host = authority.rsplit(":", 1)[0] if method == "CONNECT" else authority.split(":", 1)[0]
        try:
            if host == "proxy-garbage.test":
                sock.sendall(b"SSH-2.0-not-a-proxy\r\n\r\n")
                sock.shutdown(socket.SHUT_RDWR)
            elif host == "proxy-close.test":
                sock.shutdown(socket.SHUT_RDWR)
            else:
                lines = [line.decode("latin-1") for line in data.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]]
                reply = json.dumps({"method": method, "target": target, "lines": lines, "body": ""}).encode()
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                             b"Connection: close\r\n\r\n%s" % (len(reply), reply))
        except OSError:
            pass


def read_body(sock, data):
    """The request head and its body (by Content-Length, or chunked), reading the rest from `sock`."""
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    chunked = False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
        if name.strip().lower() == b"transfer-encoding" and value.strip().lower() == b"chunked":
            chunked = True
    if chunked:
        return head, read_chunked(sock, body)
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head, body


def read_chunked(sock, pending):
    """Decodes a chunked body whose first bytes are `pending`."""
    body = b""
    while True:
        while b"\r\n" not in pending:
            more = sock.recv(65536)
            if not more:
                return body
            pending += more
        size_line, _, pending = pending.partition(b"\r\n")
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        while len(pending) < size + 2:
            more = sock.recv(65536)
            if not more:
                return body + pending[:size]
            pending += more
        if size == 0:
            return body
        body += pending[:size]
        pending = pending[size + 2:]


class FaultServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 overflows when tests send bodies to it at the same
    # time: the kernel then resets some of the connections.
    request_queue_size = 128


def start_faults(args):
    server = FaultServer((HOST, 0), FaultHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return {"http": server.server_address[1]}, [], None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["httpbin", "nginx", "faults", "proxy"])
    parser.add_argument("--parent", type=int, default=os.getppid())
    parser.add_argument("--dir")
    parser.add_argument("--big-mib", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    starters = {"httpbin": start_httpbin, "nginx": start_nginx, "faults": start_faults, "proxy": start_proxy}
    info, children, directory = starters[args.kind](args)

    def cleanup():
        for child in children:
            try:
                os.killpg(child.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for child in children:
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
        if directory:
            shutil.rmtree(directory, ignore_errors=True)

    print(json.dumps(info), flush=True)
    watch_parent(args.parent, cleanup)


if __name__ == "__main__":
    main()
