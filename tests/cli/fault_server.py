#!/usr/bin/python3
"""A loopback exporter for the collector tests. Paths (any prefix, e.g. /n17/ok, is ignored
up to the last segment):
  ok        the dcgm capture FILE (an 8-GPU H100 scrape)
  hang      accepts, then never answers
  hangbody  sends headers and half a body, then hangs
  500       HTTP 500
  garbage   HTTP 200 with bytes that are no exposition format
  close     promises a body, sends part of it and closes the connection
  drip      one byte a second
  huge      a 1 GB body, streamed
  oversize  a chunked body (no Content-Length) that never ends, 64 KiB at a time
  gate      answers the capture once the file named by ?f= exists (waits for it, else hangs)
  loop      redirects to itself forever
  power     a Redfish Power document (429 W)
  auth      the capture for "Authorization: Bearer s3cret" and no X-Injected header, else 403
Writes its port to PORTFILE; exits by itself after LIFETIME seconds.
Usage: fault_server.py CAPTURE REDFISH PORTFILE [LIFETIME]"""
import http.server
import os
import socketserver
import sys
import threading
import time

capture = open(sys.argv[1], 'rb').read()
redfish = open(sys.argv[2], 'rb').read()
portfile = sys.argv[3]
lifetime = float(sys.argv[4]) if len(sys.argv) > 4 else 120
stop = threading.Event()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def send(self, code, body, ctype='text/plain; version=0.0.4'):
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        mode = self.path.split('?')[0].rstrip('/').rsplit('/', 1)[-1]
        try:
            if mode == 'ok':
                self.send(200, capture)
            elif mode == 'auth':
                ok = (self.headers.get('Authorization') == 'Bearer s3cret' and
                      'X-Injected' not in self.headers)
                self.send(200 if ok else 403, capture if ok else b'forbidden\n')
            elif mode == 'power':
                self.send(200, redfish, 'application/json')
            elif mode == 'hang':
                stop.wait(lifetime)
            elif mode == 'hangbody':
                self.send_response(200)
                self.send_header('Content-Length', str(len(capture)))
                self.end_headers()
                self.wfile.write(capture[:len(capture) // 2])
                self.wfile.flush()
                stop.wait(lifetime)
            elif mode == '500':
                self.send(500, b'internal error\n')
            elif mode == 'garbage':
                self.send(200, b'\x00\xff{not metrics at all\n\x01\x02')
            elif mode == 'close':
                self.send_response(200)
                self.send_header('Content-Length', str(len(capture)))
                self.end_headers()
                self.wfile.write(capture[:100])
                self.wfile.flush()
                self.connection.shutdown(2)
            elif mode == 'drip':
                self.send_response(200)
                self.send_header('Content-Length', str(len(capture)))
                self.end_headers()
                for b in capture:
                    if stop.wait(1.0):
                        break
                    self.wfile.write(bytes([b]))
                    self.wfile.flush()
            elif mode == 'huge':
                self.send_response(200)
                self.send_header('Content-Length', str(1 << 30))
                self.end_headers()
                chunk = b'#' * 65536 + b'\n'
                sent = 0
                while sent < (1 << 30) and not stop.is_set():
                    self.wfile.write(chunk)
                    sent += len(chunk)
            elif mode == 'oversize':
                self.send_response(200)
                self.send_header('Transfer-Encoding', 'chunked')
                self.end_headers()
                chunk = b'#' * 65536 + b'\n'
                frame = b'%x\r\n%s\r\n' % (len(chunk), chunk)
                while not stop.is_set():
                    self.wfile.write(frame)
            elif mode == 'gate':
                query = self.path.split('?', 1)[1] if '?' in self.path else ''
                path = dict(p.split('=', 1) for p in query.split('&') if '=' in p).get('f', '')
                while path and not os.path.exists(path) and not stop.wait(0.02):
                    pass
                self.send(200, capture)
            elif mode == 'loop':
                self.send_response(302)
                self.send_header('Location', self.path)
                self.send_header('Content-Length', '0')
                self.end_headers()
            else:
                self.send(404, b'no such mode\n')
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 1024

    def handle_error(self, request, client_address):
        pass  # clients that time out and hang up are the point of this server

server = Server(('127.0.0.1', 0), Handler)
with open(portfile + '.tmp', 'w') as f:
    f.write(str(server.server_address[1]))
os.rename(portfile + '.tmp', portfile)

def shutdown():
    stop.set()
    server.shutdown()

threading.Timer(lifetime, shutdown).start()
server.serve_forever()
