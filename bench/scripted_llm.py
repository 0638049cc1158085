#!/usr/bin/env python3
"""A scripted model behind OpenAI's Chat Completions wire, for the benchmarks.

    python3 bench/scripted_llm.py SCRIPT.json PORTFILE [LOG.jsonl]

Listens on 127.0.0.1 (a free port, written to PORTFILE once it listens) and answers every
`POST .../chat/completions` with the next step of SCRIPT, a JSON list; the last step repeats
when the script runs out. A step is the answer's text, or `{"if": NEEDLE, "then": STEP, "else":
STEP}`, which answers THEN only when the request's messages contain NEEDLE: a model that gets
something right only after it was told what failed. A request that asks to stream
(`"stream": true`) gets server-sent events as OpenAI sends them — a role chunk, the text in a
few pieces, the finish reason, a usage chunk (`stream_options.include_usage`), `[DONE]` — any
other a whole JSON body. Token counts are estimates, a token for four characters, so that the
cost a client reports follows the size of what it sent. LOG gets one line per request: its
number, whether it streamed, the prompt's characters and which branch of the step answered.

Standard library only.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def tokens(chars):
    return max(1, chars // 4)


class Script:
    def __init__(self, steps, log):
        self.steps = steps
        self.log = log
        self.n = 0
        self.lock = threading.Lock()

    def answer(self, prompt, stream):
        with self.lock:
            step = self.steps[min(self.n, len(self.steps) - 1)]
            self.n += 1
            n = self.n
        chose = "answer"
        while isinstance(step, dict):
            if step["if"] in prompt:
                step, chose = step["then"], "then"
            else:
                step, chose = step["else"], "else"
        if self.log:
            with self.lock, open(self.log, "a") as f:
                f.write(json.dumps({"request": n, "stream": stream, "prompt_chars": len(prompt),
                                    "chose": chose}) + "\n")
        return step


def make_handler(script):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def body(self):
            if "chunked" in (self.headers.get("Transfer-Encoding") or ""):
                out = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        return out
                    out += self.rfile.read(size)
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_POST(self):
            request = json.loads(self.body() or b"{}")
            if not self.path.endswith("/chat/completions"):
                self.send(404, "application/json", b'{"error": {"message": "not found"}}')
                return
            prompt = "\n".join(
                m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
                for m in request.get("messages", []))
            stream = bool(request.get("stream"))
            text = script.answer(prompt, stream)
            usage = {"prompt_tokens": tokens(len(prompt)), "completion_tokens": tokens(len(text)),
                     "total_tokens": tokens(len(prompt)) + tokens(len(text))}
            model = request.get("model", "scripted")
            if not stream:
                body = {"id": "c1", "object": "chat.completion", "model": model,
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                     "finish_reason": "stop"}], "usage": usage}
                self.send(200, "application/json", json.dumps(body).encode())
                return
            chunk = lambda choices, **more: dict(
                {"id": "c1", "object": "chat.completion.chunk", "model": model, "choices": choices},
                **more)
            events = [chunk([{"index": 0, "delta": {"role": "assistant", "content": ""},
                              "finish_reason": None}])]
            size = max(1, len(text) // 4 + 1)
            for i in range(0, len(text), size):
                events.append(chunk([{"index": 0, "delta": {"content": text[i:i + size]},
                                      "finish_reason": None}]))
            events.append(chunk([{"index": 0, "delta": {}, "finish_reason": "stop"}]))
            events.append(chunk([], usage=usage))
            sse = "".join("data: %s\n\n" % json.dumps(e) for e in events) + "data: [DONE]\n\n"
            self.send(200, "text/event-stream", sse.encode())

        def send(self, status, kind, data):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True

    return Handler


def main():
    with open(sys.argv[1]) as f:
        steps = json.load(f)
    script = Script(steps, sys.argv[3] if len(sys.argv) > 3 else None)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(script))
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(sys.argv[2] + ".tmp", sys.argv[2])
    server.serve_forever()


if __name__ == "__main__":
    main()
