"""A loopback backend for the idle benchmark: a policy with no live object (so nobody can watch)
and a logs sink that keeps nothing. Prints port=N once it listens."""
import http.server, json, sys

POLICY = json.dumps({"refresh_s": 300, "kill_switch": False}).encode()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.startswith("/v1/policy"):
            if self.headers.get("If-None-Match") == '"idle"':
                self.send_response(304)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("ETag", '"idle"')
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(POLICY)))
            self.end_headers()
            self.wfile.write(POLICY)
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port={server.server_address[1]}", flush=True)
server.serve_forever()
