#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# What another user of the cluster may do to a study's trial-jobs channel
# (tests/integration/channel_attacks.sh runs it as tune-bob):
#   intruder.py port UID               the TCP ports UID listens on (/proc/net/tcp)
#   intruder.py frames HOST PORT       frames of wrong types and shapes, each on a connection of its own
#   intruder.py idle HOST PORT N SECS  N connections that say nothing, held SECS seconds
#   intruder.py squat HOST PORT LOG PWNED
#       listens at HOST:PORT as the AppCore would; logs every first frame it
#       hears to LOG, answers half the connections as an older tune did
#       (welcome, then a launch of `touch PWNED`) and half with a challenge it
#       cannot sign, and goes on until killed
import json, os, socket, struct, sys, threading, time

def frame(body):
    if isinstance(body, (dict, list, int)):
        body = json.dumps(body).encode()
    return struct.pack(">I", len(body)) + body

def read_frame(s):
    head = b""
    while len(head) < 4:
        got = s.recv(4 - len(head))
        if not got:
            return None
        head += got
    n = struct.unpack(">I", head)[0]
    if n > 1 << 20:
        return None
    body = b""
    while len(body) < n:
        got = s.recv(n - len(body))
        if not got:
            return None
        body += got
    return body

def ports(uid):
    out = set()
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        f = line.split()
        if f[3] == "0A" and f[7] == uid:  # LISTEN
            out.add(int(f[1].split(":")[1], 16))
    print(" ".join(str(p) for p in sorted(out)))

def frames(host, port):
    nonce = "a" * 64
    bad = [
        {"type": 1},
        {"type": None, "secret": 5},
        {"type": "hello", "secret": "0" * 64, "job": 1},
        {"type": "hello", "version": 2, "job": "seven", "nonce": nonce, "tag": ""},
        {"type": "hello", "version": 2, "job": 2 ** 40, "nonce": nonce, "tag": ""},
        {"type": "hello", "version": 2, "job": -1, "nonce": [nonce], "tag": 3},
        {"type": "hello", "version": 2, "job": 1, "nonce": nonce, "tag": "0" * 64},
        {"type": "ready"},
        {"type": "launch", "launch": {"argv": ["sh"]}},
        b"[" * 100000 + b"]" * 100000,
        b"not json",
        b"\xff\xfe\x00garbage",
    ]
    for body in bad + [None]:
        s = socket.create_connection((host, port), timeout=5)
        s.sendall(struct.pack(">I", 50_000_000) if body is None else frame(body))
        try:
            s.recv(100)
        except OSError:
            pass
        s.close()

def idle(host, port, n, secs):
    held = []
    for _ in range(n):
        try:
            held.append(socket.create_connection((host, port), timeout=5))
        except OSError:
            pass
    time.sleep(secs)

def squat(host, port, log, pwned):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    for _ in range(100):  # the AppCore's socket may linger a moment
        try:
            srv.bind((host, port))
            break
        except OSError:
            time.sleep(0.1)
    srv.listen(64)
    open(log + ".ready", "w").close()
    count = [0]
    def serve(c, n):
        try:
            c.settimeout(10)
            first = read_frame(c)
            with open(log, "ab") as f:
                f.write((first or b"(nothing)") + b"\n")
            if n % 2 == 0:
                c.sendall(frame({"type": "welcome"}))
                launch = {"trial": 0, "argv": ["sh", "-c", "touch " + pwned], "env": [], "trial_dir": "/tmp",
                          "params_json": "{}", "time_limit": 60, "grace": 1, "metric_regex": ""}
                c.sendall(frame({"type": "launch", "launch": launch}))
            else:
                c.sendall(frame({"type": "challenge", "nonce": "c" * 64, "tag": "d" * 64}))
            while read_frame(c) is not None:
                pass
        except OSError:
            pass
        c.close()
    while True:
        c, _ = srv.accept()
        count[0] += 1
        threading.Thread(target=serve, args=(c, count[0]), daemon=True).start()

cmd = sys.argv[1]
if cmd == "port":
    ports(sys.argv[2])
elif cmd == "frames":
    frames(sys.argv[2], int(sys.argv[3]))
elif cmd == "idle":
    idle(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
elif cmd == "squat":
    squat(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
else:
    sys.exit("intruder.py: unknown command " + cmd)
