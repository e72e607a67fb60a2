#!/usr/bin/python3
"""A loopback HTTP proxy that forwards the first N requests to UPSTREAM and then goes away:
every later connection is reset and the proxy exits, as a server dying mid-import would.
N = 0 forwards forever. Writes its port to PORTFILE (PORT 0 picks a free one).
Usage: cut_proxy.py UPSTREAM PORT PORTFILE N"""
import http.server
import os
import socket
import struct
import sys
import threading
import urllib.error
import urllib.request

upstream, port, portfile, limit = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
count = 0
lock = threading.Lock()


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self, body):
        global count
        with lock:
            count += 1
            cut = limit and count > limit
        if cut:
            # Reset the connection (no answer at all), then leave.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            os._exit(0)
        req = urllib.request.Request(upstream + self.path, data=body, method=self.command)
        for k in ("Content-Type", "Accept"):
            if self.headers.get(k):
                req.add_header(k, self.headers[k])
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                status, data, ctype = r.status, r.read(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            status, data, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.forward(None)

    def do_POST(self):
        self.forward(self.rfile.read(int(self.headers.get("Content-Length", 0))))

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    allow_reuse_address = True
    daemon_threads = True


srv = Server(("127.0.0.1", port), Proxy)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
