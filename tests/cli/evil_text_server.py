#!/usr/bin/python3
"""A server whose every answer carries control characters in its error text:
a Prometheus API error (HTTP 400, JSON) on every path, and a plain-text 400 on /metrics.
Usage: evil_text_server.py PORT_FILE SECONDS (writes the port it listens on, serves, exits)."""
import http.server
import json
import sys
import threading


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"status": "error", "errorType": "bad_data",
                           "error": "bad query \x1b[31m\x07\x9b2J\u0085 here"}).encode()
        if self.path.startswith('/metrics'):
            body = b"oops \x1b[2J\x07 server text\n"
        self.send_response(400)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


s = http.server.HTTPServer(('127.0.0.1', 0), H)
threading.Timer(float(sys.argv[2]), s.shutdown).start()
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write(str(s.server_address[1]))
import os  # noqa: E402
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
s.serve_forever()
