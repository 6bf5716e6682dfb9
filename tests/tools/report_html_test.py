#!/usr/bin/python3
"""The report's HTML page in a real headless browser (Debian's chromium).

usage: report_html_test.py SOURCE_DIR ALLOCORE

1. Nothing leaves the page: chromium runs with every request sent to a proxy this test
   listens on. A control page that loads an image from the network must reach the proxy
   (so the check is live); the report page and the comparison page must not. The browser's
   own background requests, which it makes for any page (component updates, sign-in,
   network time), are told apart by their hosts, BROWSER_HOSTS.
2. The pictures render: the screenshot holds the charts' line colours in quantity (the
   page's other elements use none of them), and the page has the expected charts.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import matplotlib.image

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
    "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-domain-reliability",
    "--disable-client-side-phishing-detection", "--disable-default-apps",
    "--disable-extensions", "--metrics-recording-only", "--no-pings",
    "--proxy-bypass-list=<-loopback>", "--virtual-time-budget=3000",
    "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate",
]
# Hosts chromium contacts by itself whatever the page (seen with an empty page).
BROWSER_HOSTS = {"update.googleapis.com", "accounts.google.com", "clients2.google.com"}


class Proxy:
    """Accepts connections on 127.0.0.1 and keeps the host each request names (answers
    none)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hosts = []
        self.stop = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            conn.settimeout(2)
            try:
                line = conn.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
            except OSError:
                line = ""
            conn.close()
            # A connection that sends nothing before it closes or the timeout is one the
            # browser opened ahead of need (a preconnect): it names no host and carries no
            # request (a CI run once saw it as a request to '').
            if not line:
                continue
            # "CONNECT host:443 HTTP/1.1" or "GET http://host/path HTTP/1.1"
            target = line.split(" ")[1] if line.count(" ") >= 2 else line
            host = target.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0]
            self.hosts.append(host)

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def screenshot(chromium, page, png, profile, proxy):
    """The hosts the page's requests went to."""
    before = len(proxy.hosts)
    subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                    f"--proxy-server=http://127.0.0.1:{proxy.port}",
                    f"--screenshot={png}", "--window-size=1280,4200", f"file://{page}"],
                   check=True, capture_output=True, timeout=120)
    time.sleep(0.3)  # the proxy's last accept
    return [h for h in proxy.hosts[before:] if h not in BROWSER_HOSTS]


def colour_pixels(png, rgb, tolerance=0.06):
    image = matplotlib.image.imread(png)[:, :, :3]
    target = [c / 255.0 for c in rgb]
    close = abs(image - target).max(axis=2) < tolerance
    return int(close.sum())


def main():
    source, allocore = sys.argv[1], sys.argv[2]
    chromium = shutil.which("chromium")
    if chromium is None:
        print("report_html_test: chromium is not installed (./tools/dev installs it)",
              file=sys.stderr)
        sys.exit(1)
    tmp = tempfile.mkdtemp()
    proxy = Proxy()
    try:
        workload = f"{source}/tests/tools/report_workload.yaml"
        subprocess.run([allocore, "report", workload, "-o", f"{tmp}/one"], check=True,
                       capture_output=True)
        subprocess.run([allocore, "report", "--compare", "scenario", "nodes=fair", "--trace",
                        workload, "-o", f"{tmp}/two"], check=True, capture_output=True)
        with open(f"{tmp}/one/report.html", encoding="utf-8") as f:
            html = f.read()
        assert "Content-Security-Policy" in html
        # Charts: the pending-time CDF, one usage chart per queue with usage or limits (5),
        # and per parent with two or more children its shares and, with an index, the index.
        charts = html.count("<svg")
        if charts < 8:
            print(f"report_html_test: {charts} charts in the page, expected at least 8",
                  file=sys.stderr)
            sys.exit(1)

        control = f"{tmp}/control.html"
        with open(control, "w", encoding="utf-8") as f:
            f.write('<html><body><img src="http://allocore-test.invalid/x.png"></body></html>')
        # On a busy machine the browser may end before its request is sent: a few tries.
        seen = []
        for _ in range(3):
            seen = screenshot(chromium, control, f"{tmp}/control.png", f"{tmp}/profile", proxy)
            if "allocore-test.invalid" in seen:
                break
        else:
            print(f"report_html_test: the control page's request did not reach the proxy "
                  f"(saw {seen}): the check cannot see requests", file=sys.stderr)
            sys.exit(1)
        for name in ("one", "two"):
            page = f"{tmp}/{name}/report.html"
            png = f"{tmp}/{name}.png"
            requests = screenshot(chromium, page, png, f"{tmp}/profile", proxy)
            if requests:
                print(f"report_html_test: {name}: requests left the page for {requests}",
                      file=sys.stderr)
                sys.exit(1)
            blue = colour_pixels(png, (0x1f, 0x77, 0xb4))
            orange = colour_pixels(png, (0xff, 0x7f, 0x0e))
            green = colour_pixels(png, (0x2c, 0xa0, 0x2c))
            print(f"report_html_test: {name}: chart pixels blue {blue}, orange {orange}, "
                  f"green {green}")
            if blue < 1500 or orange < 100 or green < 100:
                print(f"report_html_test: {name}: the charts did not render", file=sys.stderr)
                sys.exit(1)
        print("report_html_test: OK")
    finally:
        proxy.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
