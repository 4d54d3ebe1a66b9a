"""A loopback backend for the journald-drop benchmark: a policy with no live object, and a logs
sink that notes when a batch holding a record for journald's drops arrives (OTLP/HTTP JSON,
gzipped: the app file asks for JSON so the attribute key can be found). Prints port=N once it
listens, then one line `arrived COUNT MONOTONIC_S` for each such record, and `arrived N ...` for
each of the unit's own lines `bench line N` (the baseline)."""
import gzip, http.server, json, sys, time

POLICY = json.dumps({"refresh_s": 3600, "kill_switch": False}).encode()
KEY = b'"apsio.journal.dropped.count"'
LINE = b"bench line "

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        if body:
            self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.answer(200, POLICY) if self.path.startswith("/v1/policy") else self.answer(404)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        now = time.monotonic()
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if KEY in body or LINE in body:
            batch = json.loads(body)
            for resource in batch.get("resourceLogs", []):
                for scope in resource.get("scopeLogs", []):
                    for record in scope.get("logRecords", []):
                        text = record.get("body", {}).get("stringValue", "")
                        if text.startswith("bench line "):
                            print(f"arrived {text.split()[-1]} {now:.6f}", flush=True)
                        for attribute in record.get("attributes", []):
                            if attribute["key"] == "apsio.journal.dropped.count":
                                print(f"arrived {attribute['value']['intValue']} {now:.6f}", flush=True)
        self.answer(200, b"{}")

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port={server.server_address[1]}", flush=True)
server.serve_forever()
