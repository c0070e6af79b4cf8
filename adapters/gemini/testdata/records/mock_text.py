"""Scripted Gemini API model (generateContent / streamGenerateContent): (1) claims done; (2) after
a refusal runs run_shell_command `make check`; (3) claims done again. Logs requests."""
import json, os, itertools
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
LOG = os.environ["MOCK_LOG"]; n = itertools.count(1)
def decide(body):
    cs = body.get("contents") or []
    fresp = sum(1 for c in cs for p in c.get("parts") or [] if "functionResponse" in p)
    users = sum(1 for c in cs if c.get("role") == "user" and any("text" in p for p in c.get("parts") or []))
    return [{"text": "done"}]
    if users <= 1 and fresp == 0:
        return [{"text": "All done, nothing else to do."}]
    if fresp == 0:
        return [{"functionCall": {"name": "run_shell_command", "args": {"command": "make check", "description": "run checks"}}}]
    return [{"text": "Checks pass. Finished."}]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    def log_message(self, *a): pass
    def send_json(self, obj):
        b = json.dumps(obj).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def do_GET(self): self.send_json({"models": [{"name": "models/gemini-2.5-flash"}]})
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)); body = json.loads(raw or b"{}")
        with open(LOG, "a") as f: f.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if ":countTokens" in self.path: return self.send_json({"totalTokens": 10})
        if ":embedContent" in self.path: return self.send_json({"embedding": {"values": [0.0]}})
        # non-agent calls (e.g. routing/next-speaker checks) ask for JSON: answer with a plain JSON text
        cfg = body.get("generationConfig") or body.get("config") or {}
        if cfg.get("responseMimeType") == "application/json" or "responseJsonSchema" in cfg or "responseSchema" in cfg:
            parts = [{"text": json.dumps({"next_speaker": "user", "reasoning": "done", "model_choice": "flash"})}]
        else:
            parts = decide(body)
        resp = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}, "modelVersion": "gemini-2.5-flash"}
        if ":streamGenerateContent" in self.path:
            self.send_response(200); self.send_header("Content-Type", "text/event-stream"); self.end_headers()
            self.wfile.write(f"data: {json.dumps(resp)}\r\n\r\n".encode()); self.wfile.flush()
        else:
            self.send_json(resp)
srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
open(os.environ["MOCK_PORT_FILE"], "w").write(str(srv.server_address[1])); srv.serve_forever()
