#!/usr/bin/python3
"""A loopback HTTP server for the import tests: serves files from a folder on 127.0.0.1.
Paths under /flaky/N/ answer 503 N times, then serve the file; /slow/ waits 30 s first.
Writes the port it got to PORTFILE and exits by itself after LIFETIME seconds.
Usage: http_server.py FOLDER PORTFILE [LIFETIME]"""
import http.server
import os
import sys
import threading
import time

folder, portfile = sys.argv[1], sys.argv[2]
lifetime = float(sys.argv[3]) if len(sys.argv) > 3 else 60
failures = {}

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path
        if path.startswith('/flaky/'):
            _, _, n, rest = path.split('/', 3)
            seen = failures.get(path, 0)
            if seen < int(n):
                failures[path] = seen + 1
                self.send_response(503)
                self.send_header('Retry-After', '0')
                self.end_headers()
                return
            path = '/' + rest
        if path.startswith('/slow/'):
            time.sleep(30)
            path = path[5:]
        full = os.path.join(folder, os.path.basename(path))
        if not os.path.isfile(full):
            self.send_response(404)
            self.end_headers()
            return
        data = open(full, 'rb').read()
        self.send_response(200)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
with open(portfile + '.tmp', 'w') as f:
    f.write(str(server.server_address[1]))
os.rename(portfile + '.tmp', portfile)
threading.Timer(lifetime, server.shutdown).start()
server.serve_forever()
