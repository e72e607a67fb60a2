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
  slow      the capture after 3 s (a slow exporter)
  seen      the capture, once PORTFILE.seen is made (a test waits on it)
A hostile Prometheus API for `import --prometheus` and `capacity --prometheus` (issue 25): the
base URL is http://127.0.0.1:PORT/MODE, the client asks MODE/api/v1/... (GET or POST). Host list
["h1"]; each query_range answer gives one H100 (UUID GPU-p-0) the four aggregates the importer
asks for (n 5, sum 250, min 40, max 60) at every step of the window asked for, unless:
  prom      (honest)
  shift     every time a year (365 d) ahead, until PORTFILE.honest exists
  dup       each series twice, under two job labels
  e300      the window's second point of each aggregate is -1e300 (min) or 3e300 (sum)
  hugevalid no host list; an endless valid matrix, a new GPU every series, 4 aggregates each
            (every query, instant ones too)
  endless   a matrix whose one series repeats forever (every query)
  echo      an empty matrix; every request's headers appended to PORTFILE.headers, CR/LF kept
  e502      HTTP 502 with an empty body (a proxy in front of the server)
  relist    as prom, but only the first host list is answered: later ones get HTTP 500
Writes its port to PORTFILE; exits by itself after LIFETIME seconds.
Usage: fault_server.py CAPTURE REDFISH PORTFILE [LIFETIME]"""
import http.server
import json
import os
import urllib.parse
import socketserver
import sys
import threading
import time

capture = open(sys.argv[1], 'rb').read()
redfish = open(sys.argv[2], 'rb').read()
portfile = sys.argv[3]
lifetime = float(sys.argv[4]) if len(sys.argv) > 4 else 120
stop = threading.Event()
lock = threading.Lock()
listed = []  # the relist mode's host lists asked for

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

    def do_POST(self):
        self.do_GET()

    def chunked(self, pieces):
        """Send pieces (an iterable of bytes) as a chunked 200 until they end or the client
        hangs up."""
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Transfer-Encoding', 'chunked')
        self.end_headers()
        for p in pieces:
            if stop.is_set():
                return
            self.wfile.write(b'%x\r\n%s\r\n' % (len(p), p))
        self.wfile.write(b'0\r\n\r\n')

    def prom(self, mode, api):
        """The hostile Prometheus API (see the module's text)."""
        form = urllib.parse.parse_qs(self.path.split('?', 1)[1] if '?' in self.path else '')
        n = int(self.headers.get('Content-Length') or 0)
        if n:
            form.update(urllib.parse.parse_qs(self.rfile.read(n).decode()))
        if mode == 'echo':
            with open(portfile + '.headers', 'a', newline='') as f:
                f.write(str(self.headers) + '\n----\n')
        if api.startswith('label/'):
            if mode == 'relist':
                with lock:
                    listed.append(1)
                    if len(listed) > 1:
                        self.send(500, b'{"status":"error","error":"gone"}', 'application/json')
                        return
            hosts = [] if mode == 'hugevalid' else ['h1']
            self.send(200, json.dumps({'status': 'success', 'data': hosts}).encode(),
                      'application/json')
            return
        if mode == 'e502':
            self.send(502, b'')
            return
        ok = '{"status":"success","data":{"resultType":"matrix","result":['
        query = form.get('query', [''])[0]
        endless = mode in ('hugevalid', 'endless')  # every query, instant ones too
        if mode == 'echo' or not endless and ('unless' in query or
                                               not api.startswith('query_range')):
            self.send(200, (ok + ']}}').encode(), 'application/json')
            return
        start = float(form.get('start', form.get('time', ['0']))[0])
        end = float(form.get('end', [str(start)])[0])
        step = float(form.get('step', ['300s'])[0].rstrip('s'))
        times = []
        t = start
        while t <= end + 1e-6:
            times.append(round(t, 3))
            t += step
        if mode == 'shift' and not os.path.exists(portfile + '.honest'):
            times = [x + 365 * 86400 for x in times]
        values = {'n': '5', 'sum': '250', 'min': '40', 'max': '60'}

        def series(uuid, agg, extra=None):
            labels = {'__name__': 'x', 'gpuplan_agg': agg, 'UUID': uuid, 'gpu': '0',
                      'Hostname': 'h1', 'modelName': 'NVIDIA H100 80GB HBM3'}
            labels.update(extra or {})
            pts = [[x, values[agg]] for x in times]
            if mode == 'e300' and len(pts) > 1 and agg in ('min', 'sum'):
                pts[1][1] = '-1e300' if agg == 'min' else '3e300'
            return json.dumps({'metric': labels, 'values': pts}).encode()

        if mode == 'hugevalid':
            def pieces():
                yield ok.encode()
                i = 0
                while True:
                    yield (b',' if i else b'') + b','.join(
                        series('GPU-h-%d' % i, a) for a in ('n', 'sum', 'min', 'max'))
                    i += 1
            self.chunked(pieces())
            return
        if mode == 'endless':
            one = series('GPU-p-0', 'n')

            def forever():
                yield ok.encode() + one
                while True:
                    yield (b',' + one) * 64
            self.chunked(forever())
            return
        body = [series('GPU-p-0', a) for a in ('n', 'sum', 'min', 'max')]
        if mode == 'dup':
            body = [series('GPU-p-0', a, {'job': j}) for j in ('a', 'b')
                    for a in ('n', 'sum', 'min', 'max')]
        self.send(200, ok.encode() + b','.join(body) + b']}}', 'application/json')

    def do_GET(self):
        mode = self.path.split('?')[0].rstrip('/').rsplit('/', 1)[-1]
        if '/api/v1/' in self.path:
            head, api = self.path.split('?')[0].split('/api/v1/', 1)
            try:
                self.prom(head.rstrip('/').rsplit('/', 1)[-1], api)
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass
            return
        try:
            if mode == 'ok':
                self.send(200, capture)
            elif mode == 'auth':
                ok = (self.headers.get('Authorization') == 'Bearer s3cret' and
                      'X-Injected' not in self.headers)
                self.send(200 if ok else 403, capture if ok else b'forbidden\n')
            elif mode == 'seen':
                open(portfile + '.seen', 'w').close()
                self.send(200, capture)
            elif mode == 'slow':
                if not stop.wait(3.0):
                    self.send(200, capture)
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
