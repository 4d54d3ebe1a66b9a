#!/usr/bin/python3
"""Writes negatives.txt: ordinary log lines that hold no secret of any redaction rule.

IP addresses and e-mail addresses do appear (the personal group is off by default), and so do
the words the credential rules look for, in the places where they are not a secret: prose,
SQL columns compared with placeholders, JSON booleans and counters, `--help` output, query
strings whose key is not a secret key, digests, UUIDs, epoch timestamps, order numbers.

The lines are safe by construction (no filtering by the checker), so any seed gives clean
lines; generate_mix.py uses another seed:

    /usr/bin/python3 generate_negatives.py            # writes negatives.txt next to this file

Standard library only.
"""

import base64
import json
import os
import random
import string
import sys

SEED = 1918
COUNT = 3000

DIGITS = string.digits
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
LOWER = string.ascii_lowercase
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

USERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "oscar", "peggy",
         "trent", "victor", "walter", "deploy", "ci", "backup", "postgres", "ubuntu", "admin"]
HOSTS = ["web-01", "web-02", "api-7f9c4b", "worker-3", "db-primary", "db-replica-2", "cache-1", "edge-fra-4",
         "ingest-2", "build-agent-07", "k8s-node-5", "bastion", "mail-1", "lb-2", "nas", "pi-hole", "vpn-gw"]
DOMAINS = ["example.com", "example.org", "example.net", "shop.example.com", "api.example.io", "acme.test"]
SERVICES = ["nginx", "postgresql", "redis-server", "docker", "containerd", "kubelet", "sshd", "cron", "postfix",
            "dovecot", "grafana-server", "prometheus", "node_exporter", "haproxy", "fail2ban", "chronyd",
            "systemd-resolved", "NetworkManager", "apsiod", "gunicorn", "uwsgi", "php8.2-fpm", "mariadb"]
APPS = ["api", "billing", "orders", "auth-svc", "notifier", "ingest", "scheduler", "gateway", "reports", "search"]
METHODS = ["GET"] * 8 + ["POST"] * 3 + ["PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
STATUSES = [200] * 12 + [201, 204, 301, 302, 304, 400, 401, 403, 404, 404, 409, 422, 429, 500, 502, 503, 504]
UAS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "curl/8.5.0", "Wget/1.21.3", "python-requests/2.31.0", "Go-http-client/1.1", "kube-probe/1.29",
    "Prometheus/2.51.2", "okhttp/4.12.0", "axios/1.6.8", "Apache-HttpClient/4.5.14 (Java/17.0.10)",
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "UptimeRobot/2.0", "-",
]
WORDS = ["alpha", "bravo", "report", "invoice", "summer", "tokens", "password", "secret", "bearer", "release",
         "draft", "final", "q3", "migration", "docs", "archive", "photo", "backup", "notes", "plan"]


def rs(r, n, alphabet=ALNUM):
    return "".join(r.choice(alphabet) for _ in range(n))


def luhn_ok(d):
    total = 0
    for i, ch in enumerate(reversed(d)):
        n = int(ch)
        if i % 2 == 1:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def issuer_prefix(d):
    p2, p3, p4 = int(d[:2]), int(d[:3]), int(d[:4])
    return (d[0] == "4" or 51 <= p2 <= 55 or 2221 <= p4 <= 2720 or p2 in (34, 37, 36, 38, 62, 65)
            or d.startswith("6011") or 644 <= p3 <= 649 or 3528 <= p4 <= 3589 or 300 <= p3 <= 305)


def not_card(r, n, first=None):
    """n random digits that are not a card number: a long run with an issuer prefix is made
    Luhn-invalid (decimal trace ids, order numbers ... are drawn like this)."""
    while True:
        d = (first or r.choice("123456789")) + rs(r, n - 1, DIGITS)
        if not (13 <= n <= 19 and issuer_prefix(d) and luhn_ok(d)):
            return d


class G:
    """Random pieces of log lines."""

    def __init__(self, r):
        self.r = r

    # time
    def iso(self):
        r = self.r
        return "2024-%02d-%02dT%02d:%02d:%02d.%03dZ" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                                                         r.randint(0, 59), r.randint(0, 59), r.randint(0, 999))

    def iso_us(self):
        r = self.r
        return "2024-%02d-%02dT%02d:%02d:%02d.%06d+00:00" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                                                             r.randint(0, 59), r.randint(0, 59), r.randint(0, 999999))

    def space_ts(self):
        r = self.r
        return "2024-%02d-%02d %02d:%02d:%02d,%03d" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                                                       r.randint(0, 59), r.randint(0, 59), r.randint(0, 999))

    def syslog(self):
        r = self.r
        return "%s %2d %02d:%02d:%02d" % (r.choice(MONTHS), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59),
                                          r.randint(0, 59))

    def clf(self):
        r = self.r
        return "%02d/%s/2024:%02d:%02d:%02d +0000" % (r.randint(1, 28), r.choice(MONTHS), r.randint(0, 23),
                                                      r.randint(0, 59), r.randint(0, 59))

    def klog(self):
        r = self.r
        return "%s%02d%02d %02d:%02d:%02d.%06d" % (r.choice("IIIIIWE"), r.randint(1, 12), r.randint(1, 28),
                                                  r.randint(0, 23), r.randint(0, 59), r.randint(0, 59),
                                                  r.randint(0, 999999))

    def epoch10(self):
        return str(self.r.randint(1700000000, 1799999999))

    def epoch13(self):
        return self.epoch10() + rs(self.r, 3, DIGITS)

    def epoch16(self):
        return self.epoch10() + rs(self.r, 6, DIGITS)

    def epoch19(self):
        return self.epoch10() + rs(self.r, 9, DIGITS)

    def dur(self):
        r = self.r
        k = r.randrange(5)
        if k == 0:
            return "%dms" % r.randint(1, 2000)
        if k == 1:
            return "%.3fs" % r.uniform(0.001, 30)
        if k == 2:
            return "%dm%ds" % (r.randint(1, 59), r.randint(0, 59))
        if k == 3:
            return "%dh%dm%d.%03ds" % (r.randint(1, 9), r.randint(0, 59), r.randint(0, 59), r.randint(0, 999))
        return "%.1fµs" % r.uniform(1, 999)

    # network and people
    def ip(self):
        r = self.r
        k = r.randrange(6)
        if k == 0:
            return "10.%d.%d.%d" % (r.randint(0, 255), r.randint(0, 255), r.randint(1, 254))
        if k == 1:
            return "192.168.%d.%d" % (r.randint(0, 255), r.randint(1, 254))
        if k == 2:
            return "172.%d.%d.%d" % (r.randint(16, 31), r.randint(0, 255), r.randint(1, 254))
        if k == 3:
            return "203.0.113.%d" % r.randint(1, 254)
        return "%d.%d.%d.%d" % (r.randint(1, 223), r.randint(0, 255), r.randint(0, 255), r.randint(1, 254))

    def ip6(self):
        r = self.r
        return r.choice(["2001:db8::%x" % r.randint(1, 0xffff), "fe80::%x:%x:%x:%x" % tuple(r.randint(1, 0xffff) for _ in range(4)),
                         "2a02:%x:%x:%x::%x" % tuple(r.randint(1, 0xffff) for _ in range(4)), "::1"])

    def port(self):
        return str(self.r.randint(1024, 65535))

    def email(self):
        r = self.r
        return "%s%s@%s" % (r.choice(USERS), r.choice(["", ".%s" % r.choice(USERS), str(r.randint(1, 99))]), r.choice(DOMAINS))

    def user(self):
        return self.r.choice(USERS)

    def host(self):
        return self.r.choice(HOSTS)

    def domain(self):
        return self.r.choice(DOMAINS)

    def pid(self):
        return str(self.r.randint(2, 4194304))

    # ids
    def uuid(self):
        h = rs(self.r, 32, HEX)
        return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], self.r.choice("89ab"), h[17:20], h[20:32])

    def hexs(self, n):
        return rs(self.r, n, HEX)

    def sha1(self):
        return self.hexs(40)

    def sha256(self):
        return self.hexs(64)

    def md5(self):
        return self.hexs(32)

    def short(self):
        return self.hexs(7)

    def b64(self, nbytes):
        return base64.b64encode(bytes(self.r.randrange(256) for _ in range(nbytes))).decode()

    def b64json(self, obj):
        return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")

    def order(self):
        # order and tracking numbers without a card issuer prefix
        return not_card(self.r, self.r.randint(10, 16), self.r.choice("1789"))

    def trace_dec(self):
        return not_card(self.r, 19, self.r.choice("123456789"))

    def n(self, a=1, b=9999):
        return str(self.r.randint(a, b))

    def path(self):
        r = self.r
        base = r.choice([
            "/", "/healthz", "/readyz", "/metrics", "/api/v1/orders", "/api/v1/orders/%s" % self.n(1000, 99999),
            "/api/v2/users/%s/profile" % self.n(), "/static/js/app.%s.js" % self.hexs(8), "/static/css/main.%s.css" % self.hexs(8),
            "/login", "/logout", "/account/password/reset", "/account/password/changed", "/docs/authentication",
            "/docs/api/tokens", "/api/v1/tokens/usage", "/favicon.ico", "/robots.txt", "/search", "/cart",
            "/checkout/confirm", "/images/%s.webp" % self.hexs(12), "/blog/2024/05/rotating-secrets-safely",
            "/wp-login.php", "/.env", "/.git/config", "/api/graphql", "/ws", "/oauth/authorize", "/api/v1/secrets/policies",
            "/downloads/apsiod_1.4.2_amd64.deb", "/feeds/%s.xml" % r.choice(WORDS), "/sitemap.xml",
        ])
        q = r.choice([
            "", "", "", "", "?page=%d&sort=desc&q=tokens" % r.randint(1, 40), "?q=password+reset", "?q=bearer+of+bad+news",
            "?lang=de&currency=EUR", "?since=%s&limit=100" % self.epoch10(), "?utm_source=newsletter&utm_medium=email&utm_campaign=spring",
            "?response_type=code&client_id=web&redirect_uri=https%%3A%%2F%%2Fapp.example.com%%2Fcb&scope=openid+profile&state=%s" % self.hexs(16),
            "?grant_type=refresh_token", "?response_type=token&client_id=spa", "?include=secretary,manager", "?cursor=%s" % self.b64json({"id": r.randint(1, 99999)}),
            "?v=%s" % self.short(), "?ids=%s,%s,%s" % (self.n(), self.n(), self.n()), "?format=json&fields=id,name,token_count",
            "?next=/account/password", "?filter=status:active&per_page=50",
        ])
        return base + q

    def ua(self):
        return self.r.choice(UAS)


# ------------------------------------------------------------------ line families

def nginx_access(g):
    r = g.r
    ref = r.choice(['"-"', '"https://www.google.com/"', '"https://%s/dashboard"' % g.domain(), '"-"'])
    return '%s - %s [%s] "%s %s HTTP/%s" %d %d %s "%s"' % (
        g.ip(), r.choice(["-", "-", "-", g.user()]), g.clf(), r.choice(METHODS), g.path(), r.choice(["1.1", "1.1", "2.0"]),
        r.choice(STATUSES), r.randint(0, 90000), ref, g.ua())


def nginx_access_timed(g):
    r = g.r
    return '%s - - [%s] "%s %s HTTP/1.1" %d %d "-" "%s" rt=%.3f uct="%.3f" uht="%.3f" urt="%.3f"' % (
        g.ip(), g.clf(), r.choice(METHODS), g.path(), r.choice(STATUSES), r.randint(0, 50000), g.ua(),
        r.uniform(0, 3), r.uniform(0, 0.01), r.uniform(0, 2), r.uniform(0, 2))


def nginx_error(g):
    r = g.r
    ts = "2024/%02d/%02d %02d:%02d:%02d" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59), r.randint(0, 59))
    pid = r.randint(10, 9999)
    msg = r.choice([
        'connect() failed (111: Connection refused) while connecting to upstream, client: %s, server: %s, request: "GET %s HTTP/1.1", upstream: "http://127.0.0.1:%s%s", host: "%s"'
        % (g.ip(), g.domain(), g.path(), g.port(), "/", g.domain()),
        'upstream timed out (110: Connection timed out) while reading response header from upstream, client: %s, server: %s, request: "POST /api/v1/orders HTTP/1.1", upstream: "http://10.0.3.%d:8080/api/v1/orders"' % (g.ip(), g.domain(), r.randint(2, 250)),
        'open() "/usr/share/nginx/html%s" failed (2: No such file or directory), client: %s, server: _, request: "GET %s HTTP/1.1"' % ("/.env", g.ip(), "/.env"),
        'SSL_do_handshake() failed (SSL: error:0A00006C:SSL routines::bad key share) while SSL handshaking, client: %s, server: 0.0.0.0:443' % g.ip(),
        'limiting requests, excess: %.3f by zone "api", client: %s, server: %s, request: "GET /api/v1/tokens/usage HTTP/1.1"' % (r.uniform(1, 20), g.ip(), g.domain()),
        'client intended to send too large body: %d bytes, client: %s, server: %s, request: "POST /upload HTTP/2.0"' % (r.randint(10**6, 10**8), g.ip(), g.domain()),
    ])
    return "%s [%s] %d#%d: *%d %s" % (ts, r.choice(["error", "warn", "crit", "error"]), pid, pid, r.randint(1, 999999), msg)


def apache(g):
    r = g.r
    ts = "%s %s %02d %02d:%02d:%02d.%06d 2024" % (r.choice(DAYS), r.choice(MONTHS), r.randint(1, 28), r.randint(0, 23),
                                                 r.randint(0, 59), r.randint(0, 59), r.randint(0, 999999))
    msg = r.choice([
        "[php:error] [pid %s] [client %s:%s] PHP Fatal error:  Uncaught Error: Call to undefined function mysql_connect() in /var/www/html/index.php:%d" % (g.n(100, 99999), g.ip(), g.port(), r.randint(2, 400)),
        "[auth_basic:error] [pid %s] [client %s:%s] AH01618: user %s not found: /admin" % (g.n(100, 99999), g.ip(), g.port(), g.user()),
        "[auth_basic:error] [pid %s] [client %s:%s] AH01617: user %s: authentication failure for \"/private\": Password Mismatch" % (g.n(100, 99999), g.ip(), g.port(), g.user()),
        "[mpm_event:notice] [pid %s:tid %s] AH00489: Apache/2.4.59 (Debian) OpenSSL/3.0.11 configured -- resuming normal operations" % (g.n(100, 99999), g.n(100000, 999999)),
        "[core:error] [pid %s] [client %s:%s] AH00126: Invalid URI in request GET /../../etc/passwd HTTP/1.1" % (g.n(100, 99999), g.ip(), g.port()),
        "[ssl:warn] [pid %s] AH01909: www.%s:443:0 server certificate does NOT include an ID which matches the server name" % (g.n(100, 99999), g.domain()),
    ])
    return "[%s] %s" % (ts, msg)


PY_EXC = [
    "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.{domain}', port=443): Max retries exceeded with url: /v1/tokens/introspect (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f{hex9}>: Failed to establish a new connection: [Errno 111] Connection refused'))",
    "KeyError: 'password'",
    "KeyError: 'api_key'",
    "django.db.utils.IntegrityError: duplicate key value violates unique constraint \"users_email_key\"",
    "psycopg2.OperationalError: connection to server at \"db-primary\" ({ip}), port 5432 failed: FATAL:  password authentication failed for user \"{user}\"",
    "sqlalchemy.exc.OperationalError: (pymysql.err.OperationalError) (1045, \"Access denied for user '{user}'@'{ip}' (using password: YES)\")",
    "ValueError: invalid literal for int() with base 10: 'abc'",
    "TypeError: __init__() got an unexpected keyword argument 'token_type'",
    "jwt.exceptions.ExpiredSignatureError: Signature has expired",
    "jwt.exceptions.DecodeError: Not enough segments",
    "redis.exceptions.AuthenticationError: invalid username-password pair or user is disabled.",
    "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
    "botocore.exceptions.ClientError: An error occurred (ExpiredToken) when calling the GetObject operation: The provided token has expired.",
    "celery.exceptions.SoftTimeLimitExceeded: SoftTimeLimitExceeded()",
    "AttributeError: 'NoneType' object has no attribute 'secret_key'",
    "PermissionError: [Errno 13] Permission denied: '/etc/{app}/secrets.env'",
    "FileNotFoundError: [Errno 2] No such file or directory: '/run/secrets/db_password'",
    "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)",
    "asyncio.exceptions.TimeoutError",
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    "oauthlib.oauth2.rfc6749.errors.InvalidGrantError: (invalid_grant) Token has been expired or revoked.",
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
]
PY_FILES = ["/usr/lib/python3/dist-packages/requests/adapters.py", "/srv/{app}/venv/lib/python3.11/site-packages/django/db/backends/utils.py",
            "/srv/{app}/app/auth/tokens.py", "/srv/{app}/app/views/password_reset.py", "/usr/local/lib/python3.12/asyncio/base_events.py",
            "/srv/{app}/venv/lib/python3.11/site-packages/celery/app/trace.py", "/srv/{app}/app/services/secrets.py"]
PY_FUNCS = ["send", "execute", "refresh_access_token", "post", "run_until_complete", "trace_task", "load_secret", "validate_password", "__call__"]


def fill(g, text):
    return text.format(domain=g.domain(), hex9=g.hexs(9), ip=g.ip(), user=g.user(), app=g.r.choice(APPS))


def python_tb(g):
    r = g.r
    k = r.randrange(6)
    if k == 0:
        return "Traceback (most recent call last):"
    if k <= 2:
        return '  File "%s", line %d, in %s' % (fill(g, r.choice(PY_FILES)), r.randint(1, 2000), r.choice(PY_FUNCS))
    if k == 3:
        return "    " + r.choice(["raise ConnectionError(e, request=request)", "return self.cursor.execute(sql, params)",
                                  "resp = session.post(url, data=payload, timeout=10)", "user.set_password(form.cleaned_data['new_password1'])",
                                  "resp = self._refresh(token_url, timeout=self.timeout)", "return await fut",
                                  "if not check_password(raw, user.password_hash):", "data = vault.read(path)['data']"])
    return fill(g, r.choice(PY_EXC))


def python_logging(g):
    r = g.r
    lvl = r.choice(["INFO", "INFO", "WARNING", "ERROR", "DEBUG"])
    msg = r.choice([
        "Password reset email sent to user %s" % g.n(), "Token refresh succeeded for client web-frontend",
        "Scheduled task cleanup_expired_tokens completed: %s rows deleted" % g.n(0, 5000),
        "GET /api/v1/orders/%s 200 in %s" % (g.n(), g.dur()), "Worker %s booted (pid: %s)" % (g.n(1, 16), g.pid()),
        "Retrying in %d seconds (attempt %d of 5)" % (r.randint(1, 60), r.randint(1, 5)),
        "user %s changed their password" % g.user(), "secret rotation scheduled for %s" % g.iso(),
        "Loaded %s feature flags from https://flags.%s/v1/flags" % (g.n(1, 300), g.domain()),
        "Sending notification to %s" % g.email(), "Cache miss for key user:%s:permissions" % g.n(),
        "Received task: reports.generate[%s]" % g.uuid(), "Task reports.generate[%s] succeeded in %.3fs: None" % (g.uuid(), r.uniform(0, 40)),
        "Not Found: /wp-login.php", "Invalid HTTP_HOST header: '%s'. You may need to add '%s' to ALLOWED_HOSTS." % (g.ip(), g.ip()),
        "api_key_id=%s revoked by %s" % (g.n(), g.user()), "rate limiter: %s requests, window=60s, tokens=%d" % (g.n(1, 900), r.randint(0, 100)),
    ])
    return "%s %s [%s] %s: %s" % (g.space_ts(), lvl, r.choice(["app.views", "app.tasks", "celery.worker", "django.request", "gunicorn.error", "app.auth"]),
                                  r.choice(["MainThread", "Thread-%d" % r.randint(1, 40), "worker-%d" % r.randint(1, 8)]), msg)


JAVA_EXC = [
    "java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"token\" is null",
    "java.lang.IllegalStateException: Connection pool shut down",
    "org.springframework.security.authentication.BadCredentialsException: Bad credentials",
    "org.postgresql.util.PSQLException: FATAL: password authentication failed for user \"{user}\"",
    "java.net.SocketTimeoutException: Read timed out",
    "com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException: Unrecognized field \"refresh_token_expires_in\" (class com.acme.auth.TokenResponse), not marked as ignorable",
    "javax.net.ssl.SSLHandshakeException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target",
    "java.util.concurrent.TimeoutException: Did not observe any item or terminal signal within 5000ms in 'flatMap'",
    "org.hibernate.exception.ConstraintViolationException: could not execute statement; constraint [uk_api_key_hash]",
    "java.lang.OutOfMemoryError: Java heap space",
    "io.jsonwebtoken.ExpiredJwtException: JWT expired at 2024-05-01T12:00:00Z. Current time: 2024-05-01T12:05:13Z, a difference of 313401 milliseconds.",
    "org.springframework.web.client.HttpClientErrorException$Unauthorized: 401 Unauthorized: \"{{\"error\":\"invalid_token\",\"error_description\":\"Token expired\"}}\"",
]
JAVA_FRAMES = ["com.acme.auth.TokenService.refresh(TokenService.java:{n})", "com.acme.orders.OrderController.create(OrderController.java:{n})",
               "org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:885)",
               "jakarta.servlet.http.HttpServlet.service(HttpServlet.java:658)", "java.base/java.lang.Thread.run(Thread.java:1583)",
               "org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:166)",
               "com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:{n})", "com.acme.security.PasswordPolicy.validate(PasswordPolicy.java:{n})",
               "java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1144)",
               "reactor.core.publisher.Mono.block(Mono.java:1742)", "com.acme.secrets.VaultClient.read(VaultClient.java:{n})"]


def java(g):
    r = g.r
    k = r.randrange(7)
    if k <= 2:
        return "\tat " + r.choice(JAVA_FRAMES).format(n=r.randint(20, 900))
    if k == 3:
        return "\t... %d common frames omitted" % r.randint(1, 120)
    if k == 4:
        return "Caused by: " + r.choice(JAVA_EXC).format(user=g.user())
    lvl = r.choice(["INFO", "WARN", "ERROR", "DEBUG"])
    msg = r.choice(JAVA_EXC).format(user=g.user()) if lvl == "ERROR" else r.choice([
        "Started Application in %.3f seconds (process running for %.3f)" % (r.uniform(2, 30), r.uniform(3, 40)),
        "HikariPool-1 - Start completed.", "Tomcat started on port 8080 (http) with context path ''",
        "Refreshing access token for client reports-batch", "Password policy updated: minLength=12, requireSymbol=true",
        "Completed initialization in %d ms" % r.randint(1, 50), "Secured GET /actuator/health", "Failed to authenticate since password does not match stored value",
        "Token cache size=%d hits=%d misses=%d" % (r.randint(0, 5000), r.randint(0, 10**6), r.randint(0, 10**4)),
    ])
    return "%s %5s %d --- [%s] %s : %s" % (g.space_ts().replace(",", "."), lvl, r.randint(1, 99999),
                                          r.choice(["main", "nio-8080-exec-%d" % r.randint(1, 10), "scheduling-1", "task-%d" % r.randint(1, 9)]),
                                          r.choice(["c.a.auth.TokenService", "o.s.b.w.embedded.tomcat.TomcatWebServer", "com.zaxxer.hikari.HikariDataSource",
                                                    "o.s.s.w.a.www.BasicAuthenticationFilter", "c.a.orders.OrderController"]), msg)


def go(g):
    r = g.r
    k = r.randrange(8)
    if k == 0:
        return r.choice(["panic: runtime error: invalid memory address or nil pointer dereference",
                         "panic: runtime error: index out of range [3] with length 3",
                         "[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x%s]" % g.hexs(7),
                         "fatal error: concurrent map writes"])
    if k == 1:
        return "goroutine %d [%s]:" % (r.randint(1, 9999), r.choice(["running", "chan receive", "IO wait", "select", "semacquire"]))
    if k == 2:
        return "%s(0x%s, 0x%s)" % (r.choice(["main.(*Server).handleToken", "github.com/acme/ingest/internal/auth.(*Verifier).Verify",
                                              "net/http.(*conn).serve", "github.com/acme/api/store.(*Postgres).UpdatePasswordHash",
                                              "main.main"]), g.hexs(10), g.hexs(6))
    if k == 3:
        return "\t%s:%d +0x%s" % (r.choice(["/go/src/app/server.go", "/usr/local/go/src/net/http/server.go", "/go/pkg/mod/github.com/acme/ingest@v1.8.2/internal/auth/verify.go",
                                            "/build/cmd/api/main.go"]), r.randint(10, 3000), g.hexs(3))
    if k == 4:
        return "%s http: TLS handshake error from %s:%s: %s" % (g.syslog_go(), g.ip(), g.port(), r.choice(["EOF", "remote error: tls: bad certificate", "tls: client offered only unsupported versions: [302 301]"]))
    if k == 5:
        return 'level=%s ts=%s caller=%s msg="%s"%s' % (
            r.choice(["info", "warn", "error", "debug"]), g.iso(), r.choice(["main.go:%d" % r.randint(10, 500), "scrape.go:1480", "compact.go:574", "head.go:%d" % r.randint(100, 999)]),
            r.choice(["Server is ready to receive web requests.", "Scrape commit failed", "write block", "Head GC completed", "Completed loading of configuration file",
                      "token bucket refilled", "secret store synced"]),
            r.choice(["", " component=tsdb duration=%s" % g.dur(), ' scrape_pool=node target=http://%s:9100/metrics' % g.ip(), " mint=%s maxt=%s ulid=01HX%s" % (g.epoch13(), g.epoch13(), rs(r, 22, "0123456789ABCDEFGHJKMNPQRSTVWXYZ"))]))
    if k == 6:
        return '{"level":"%s","ts":%s.%s,"caller":"%s","msg":"%s","duration":"%s"}' % (
            r.choice(["info", "warn", "error"]), g.epoch10(), rs(r, 7, DIGITS), r.choice(["zap/server.go:211", "ingest/worker.go:88", "auth/jwks.go:54"]),
            r.choice(["request served", "batch flushed", "refreshed JWKS", "bearer auth disabled for /healthz", "token_bucket empty"]), g.dur())
    return "%s %s" % (g.syslog_go(), r.choice(["Starting server on :8080", "shutting down: context canceled", "reloading certificates from /etc/ssl/private",
                                             "dial tcp %s:5432: connect: connection refused" % g.ip(), "read: connection reset by peer",
                                             "http2: server: error reading preface from client %s:%s: read: connection reset by peer" % (g.ip(), g.port())]))


def _syslog_go(self):
    r = self.r
    return "2024/%02d/%02d %02d:%02d:%02d" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59), r.randint(0, 59))


G.syslog_go = _syslog_go


def rust(g):
    r = g.r
    k = r.randrange(4)
    if k == 0:
        return "thread '%s' panicked at src/%s.rs:%d:%d:" % (r.choice(["main", "tokio-runtime-worker", "<unnamed>"]), r.choice(["main", "db/pool", "auth/token", "ingest"]), r.randint(1, 900), r.randint(1, 80))
    if k == 1:
        return r.choice(["called `Result::unwrap()` on an `Err` value: Os { code: 2, kind: NotFound, message: \"No such file or directory\" }",
                         "called `Option::unwrap()` on a `None` value", "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
                         "Error: reqwest::Error { kind: Request, url: \"https://%s/v1/token\", source: hyper::Error(Connect, ConnectError(\"tcp connect error\", Os { code: 111, kind: ConnectionRefused, message: \"Connection refused\" })) }" % g.domain()])
    if k == 2:
        return "%s  %s request{method=%s uri=%s version=HTTP/1.1}: tower_http::trace::on_response: finished processing request latency=%d ms status=%d" % (
            g.iso(), r.choice(["INFO", "DEBUG", "WARN"]), r.choice(METHODS), g.path().split("?")[0], r.randint(0, 900), r.choice(STATUSES))
    return "%s %s %s: %s" % (g.iso(), r.choice(["INFO", "WARN", "ERROR"]), r.choice(["sqlx::query", "apsio_ingest::worker", "hyper::proto::h1::conn", "rustls::conn"]),
                             r.choice(["summary=\"SELECT id, token_hash FROM …\" db.statement=\"\" rows_affected=0 rows_returned=1 elapsed=%s" % g.dur(),
                                       "flushed %d records in %s" % (r.randint(1, 5000), g.dur()), "Sending warning alert CloseNotify",
                                       "connection error: connection reset by peer", "password hashing took %s (argon2id m=19456 t=2 p=1)" % g.dur()]))


def node(g):
    r = g.r
    k = r.randrange(6)
    if k <= 1:
        return "    at %s (%s:%d:%d)" % (r.choice(["processTicksAndRejections", "Layer.handle [as handle_request]", "TokenService.verify", "async Promise.all (index 0)",
                                                   "Socket.emit", "PasswordResetController.create"]),
                                          r.choice(["node:internal/process/task_queues", "/app/node_modules/express/lib/router/layer.js", "/app/dist/services/token.service.js",
                                                    "/app/dist/controllers/password-reset.controller.js", "node:events"]), r.randint(1, 900), r.randint(1, 80))
    if k == 2:
        return r.choice(["Error: connect ECONNREFUSED %s:5432" % g.ip(), "TokenExpiredError: jwt expired", "JsonWebTokenError: invalid signature",
                         "UnhandledPromiseRejectionWarning: Error: Request failed with status code 401", "TypeError: Cannot read properties of undefined (reading 'token')",
                         "Error [ERR_HTTP_HEADERS_SENT]: Cannot set headers after they are sent to the client", "RangeError: Maximum call stack size exceeded",
                         "(node:%d) [DEP0040] DeprecationWarning: The `punycode` module is deprecated." % r.randint(1, 9999)])
    if k == 3:
        return "%s %s %d %.3f ms - %s" % (r.choice(METHODS), g.path(), r.choice(STATUSES), r.uniform(0.1, 900), r.choice(["-", str(r.randint(2, 90000))]))
    if k == 4:
        return '{"level":%d,"time":%s,"pid":%d,"hostname":"%s","reqId":"req-%s","res":{"statusCode":%d},"responseTime":%.6f,"msg":"request completed"}' % (
            r.choice([30, 30, 40, 50]), g.epoch13(), r.randint(1, 99999), g.host(), rs(r, 4, LOWER + DIGITS), r.choice(STATUSES), r.uniform(0, 500))
    return "npm %s %s" % (r.choice(["WARN", "notice", "ERR!"]), r.choice(["deprecated request@2.88.2: request has been deprecated, see https://github.com/request/request/issues/3142",
                                                                        "New minor version of npm available! 10.5.0 -> 10.7.0", "code E401", "Unable to authenticate, your authentication token seems to be invalid.",
                                                                        "To permanently fix this error, run: npm login", "audited %d packages in %s" % (r.randint(100, 2000), g.dur())])) 


SQL = [
    "SELECT id, email, password_hash FROM users WHERE email = $1",
    "UPDATE users SET password_hash = $1, password_changed_at = now() WHERE id = $2",
    "UPDATE users SET token_count = token_count + 1 WHERE id = $1",
    "SELECT * FROM api_keys WHERE api_key_id = ? AND revoked_at IS NULL",
    "INSERT INTO sessions (user_id, token_hash, expires_at) VALUES ($1, $2, $3)",
    "SELECT secret_question_id, answer_hash FROM recovery WHERE user_id = $1",
    "DELETE FROM password_resets WHERE created_at < now() - interval '1 day'",
    "SELECT count(*) FROM refresh_tokens WHERE user_id = $1 AND revoked = false",
    "UPDATE oauth_clients SET secret_rotated_at = $1 WHERE client_id = $2",
    "SELECT o.id, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.id = $1 ORDER BY o.created_at DESC LIMIT 20",
    "INSERT INTO audit_log (actor, action, target) VALUES (?, 'password.reset', ?)",
    "SELECT token_type, scopes, expires_in FROM access_grants WHERE grant_id = $1",
    "CREATE INDEX CONCURRENTLY idx_api_keys_prefix ON api_keys (key_prefix)",
    "ALTER TABLE users ADD COLUMN passphrase_hint_id bigint",
    "SELECT pg_advisory_lock($1)",
    "COPY events (id, kind, payload) FROM STDIN",
]


def sql(g):
    r = g.r
    s = r.choice(SQL)
    k = r.randrange(4)
    if k == 0:
        return "%s UTC [%d] %s@%s LOG:  duration: %.3f ms  statement: %s" % (g.space_ts()[:19], r.randint(100, 99999), g.user(), r.choice(APPS), r.uniform(0.01, 3000), s)
    if k == 1:
        return "%s UTC [%d] %s@%s LOG:  execute <unnamed>: %s" % (g.space_ts()[:19], r.randint(100, 99999), g.user(), r.choice(APPS), s)
    if k == 2:
        return "%s UTC [%d] %s@%s ERROR:  %s" % (g.space_ts()[:19], r.randint(100, 99999), g.user(), r.choice(APPS), r.choice([
            "duplicate key value violates unique constraint \"api_keys_key_prefix_key\"", "relation \"password_resets\" does not exist at character 15",
            "canceling statement due to statement timeout", "deadlock detected", "column \"token\" does not exist at character 8",
            "permission denied for table secrets"]))
    return "%s [%s] Executed (%s): %s" % (g.iso(), r.choice(["sequelize", "gorm", "knex", "ActiveRecord"]), g.dur(), s)


def postgres_server(g):
    r = g.r
    return "%s UTC [%d] %s" % (g.space_ts()[:19], r.randint(1, 99999), r.choice([
        "LOG:  checkpoint starting: time", "LOG:  checkpoint complete: wrote %d buffers (%.1f%%); 0 WAL file(s) added, 0 removed, %d recycled; write=%.3f s, sync=%.3f s, total=%.3f s"
        % (r.randint(1, 9000), r.uniform(0, 40), r.randint(0, 9), r.uniform(0, 200), r.uniform(0, 2), r.uniform(0, 200)),
        "LOG:  connection received: host=%s port=%s" % (g.ip(), g.port()), "LOG:  connection authorized: user=%s database=%s application_name=psql" % (g.user(), r.choice(APPS)),
        "FATAL:  password authentication failed for user \"%s\"" % g.user(), "DETAIL:  Connection matched pg_hba.conf line 99: \"host all all 0.0.0.0/0 scram-sha-256\"",
        "LOG:  database system is ready to accept connections", "LOG:  automatic vacuum of table \"app.public.sessions\": index scans: 1",
        "FATAL:  no pg_hba.conf entry for host \"%s\", user \"%s\", database \"%s\", SSL encryption" % (g.ip(), g.user(), r.choice(APPS)),
    ]))


def json_event(g):
    r = g.r
    k = r.randrange(10)
    if k == 0:
        ev = {"event": "login", "user_id": r.randint(1, 99999), "password_changed": r.choice([False, True]), "token_expires_in": 3600}
    elif k == 1:
        ev = {"level": "info", "msg": "token refreshed", "expires_in": 3600, "token_type": "Bearer", "client_id": r.choice(["web", "ios", "android"])}
    elif k == 2:
        ev = {"ts": g.iso(), "level": "info", "msg": "completion", "model": "small-%d" % r.randint(1, 3), "tokens": {"prompt": r.randint(1, 4000), "completion": r.randint(1, 800)}, "latency_ms": r.randint(50, 9000)}
    elif k == 3:
        ev = {"time": g.iso(), "level": "INFO", "msg": "http request", "method": r.choice(METHODS), "path": g.path(), "status": r.choice(STATUSES),
              "remote_addr": g.ip(), "user_agent": g.ua(), "duration_ms": r.randint(0, 3000), "request_id": g.uuid()}
    elif k == 4:
        ev = {"event": "password_reset_requested", "user_id": r.randint(1, 99999), "email": g.email(), "ip": g.ip()}
    elif k == 5:
        ev = {"type": "order.created", "order_id": g.order(), "amount": r.randint(100, 99999), "currency": r.choice(["EUR", "USD", "GBP"]), "items": r.randint(1, 9), "customer_id": r.randint(1, 10**6)}
    elif k == 6:
        ev = {"level": "warn", "msg": "secret rotation overdue", "secret_name": "db-credentials", "age_days": r.randint(90, 400), "has_secret": True}
    elif k == 7:
        ev = {"traceId": g.hexs(32), "spanId": g.hexs(16), "name": "GET /api/v1/orders", "kind": 2, "startTimeUnixNano": g.epoch19(), "endTimeUnixNano": g.epoch19()}
    elif k == 8:
        ev = {"level": "info", "dd.trace_id": g.trace_dec(), "dd.span_id": g.trace_dec(), "msg": "charge captured", "order": g.order()}
    else:
        ev = {"event": "api_key.created", "api_key_id": r.randint(1, 99999), "key_prefix": "ak_" + rs(r, 4, LOWER), "scopes": ["read", "write"], "created_by": g.email()}
    return json.dumps(ev, separators=(",", ":") if r.random() < 0.6 else (", ", ": "), ensure_ascii=False)


def kubernetes(g):
    r = g.r
    k = r.randrange(9)
    src = r.choice(["reflector.go:351", "controller.go:%d" % r.randint(100, 400), "kubelet.go:%d" % r.randint(1000, 2900), "pod_workers.go:1298", "event.go:389"])
    if k == 0:
        return '%s       1 %s] "Caches populated" type="*v1.Secret" reflector="pkg/mod/k8s.io/client-go@v0.29.0/tools/cache/reflector.go:229"' % (g.klog(), src)
    if k == 1:
        return '%s    %d %s] "Reconciling" deployment="%s/%s" replicas=%d generation=%d' % (g.klog(), r.randint(1, 9999), src, r.choice(["default", "prod", "kube-system"]), r.choice(APPS), r.randint(1, 9), r.randint(1, 400))
    if k == 2:
        return '%s    %d kuberuntime_manager.go:1055] "Message for Container of pod" containerName="%s" containerStatusID={"Type":"containerd","ID":"%s"} pod="%s/%s-%s-%s"' % (
            g.klog(), r.randint(1, 9999), r.choice(APPS), g.sha256(), r.choice(["default", "prod"]), r.choice(APPS), g.hexs(10), rs(r, 5, LOWER + DIGITS))
    if k == 3:
        return "Normal   Pulled     %s  kubelet  Successfully pulled image \"registry.%s/%s:%s\" in %s (%s including waiting)" % (
            r.choice(["2m", "14s", "5m3s"]), g.domain(), r.choice(APPS), r.choice(["1.4.2", "2024.05.1", "sha-" + g.short()]), g.dur(), g.dur())
    if k == 4:
        return '%s    %d operation_generator.go:721] "MountVolume.SetUp succeeded for volume \\"kube-api-access-%s\\" (UniqueName: \\"kubernetes.io/projected/%s-kube-api-access-%s\\")" pod="prod/%s-%s"' % (
            g.klog(), r.randint(1, 9999), rs(r, 5, LOWER + DIGITS), g.uuid(), rs(r, 5, LOWER + DIGITS), r.choice(APPS), rs(r, 5, LOWER + DIGITS))
    if k == 5:
        return "Warning  BackOff    %ds  kubelet  Back-off restarting failed container %s in pod %s-%s_prod(%s)" % (r.randint(1, 600), r.choice(APPS), r.choice(APPS), rs(r, 5, LOWER + DIGITS), g.uuid())
    if k == 6:
        return '%s    %d secret_controller.go:%d] "Secret updated" namespace="prod" name="%s-tls" resourceVersion="%d"' % (g.klog(), r.randint(1, 9999), r.randint(50, 300), r.choice(APPS), r.randint(10**5, 10**8))
    if k == 7:
        return "Normal   Scheduled  %ds  default-scheduler  Successfully assigned prod/%s-%s to %s" % (r.randint(1, 900), r.choice(APPS), rs(r, 5, LOWER + DIGITS), g.host())
    return '%s    %d round_trippers.go:553] "Response" verb="GET" url="https://10.96.0.1:443/api/v1/namespaces/prod/secrets?resourceVersion=%d" status="200 OK" milliseconds=%d' % (
        g.klog(), r.randint(1, 9999), r.randint(10**5, 10**8), r.randint(1, 900))


def systemd(g):
    r = g.r
    svc = r.choice(SERVICES)
    msg = r.choice([
        "Started %s.service - %s." % (svc, svc), "Stopping %s.service..." % svc, "%s.service: Deactivated successfully." % svc,
        "%s.service: Main process exited, code=exited, status=1/FAILURE" % svc, "%s.service: Failed with result 'exit-code'." % svc,
        "%s.service: Consumed %.3fs CPU time." % (svc, r.uniform(0, 900)), "Reached target multi-user.target - Multi-User System.",
        "Started session-%d.scope - Session %d of User %s." % (r.randint(1, 9999), r.randint(1, 9999), g.user()),
        "Startup finished in %.3fs (kernel) + %.3fs (userspace) = %.3fs." % (r.uniform(1, 5), r.uniform(1, 30), r.uniform(2, 35)),
        "%s.service: Scheduled restart job, restart counter is at %d." % (svc, r.randint(1, 50)), "Starting logrotate.service - Rotate log files...",
        "Finished systemd-tmpfiles-clean.service - Cleanup of Temporary Directories.", "Listening on sshd.socket - OpenSSH Server Socket.",
        "%s.service: Referenced but unset environment variable evaluates to an empty string: EXTRA_OPTS" % svc,
        "Condition check resulted in %s.service being skipped." % svc, "%s.timer: Adding %.1fmin random time." % (svc, r.uniform(0, 60)),
        "Mounted run-credentials-%s.service.mount." % svc, "Created slice user-%s.slice - User Slice of UID %s." % ((lambda u: (u, u))(str(r.randint(1000, 1010)))),
    ])
    return "%s %s systemd[%s]: %s" % (g.syslog(), g.host(), r.choice(["1", "1", g.pid()]), msg)


def cron(g):
    r = g.r
    cmd = r.choice(["/usr/local/bin/backup.sh > /dev/null 2>&1", "cd / && run-parts --report /etc/cron.hourly", "[ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]; then /usr/lib/php/sessionclean; fi",
                    "/srv/app/venv/bin/python manage.py clearsessions", "test -x /usr/sbin/anacron || ( cd / && run-parts --report /etc/cron.daily )",
                    "/usr/bin/certbot renew --quiet", "/opt/scripts/rotate-tokens.sh --dry-run", "flock -n /tmp/sync.lock /opt/scripts/sync-secrets-metadata.sh"])
    k = r.randrange(3)
    if k == 0:
        return "%s %s CRON[%s]: (%s) CMD (%s)" % (g.syslog(), g.host(), g.pid(), r.choice(["root", g.user()]), cmd)
    if k == 1:
        return "%s %s CRON[%s]: pam_unix(cron:session): session %s for user %s%s" % (g.syslog(), g.host(), g.pid(), r.choice(["opened", "closed"]), r.choice(["root", g.user()]), r.choice(["", "(uid=0) by (uid=0)"]))
    return "%s %s CRON[%s]: (CRON) info (No MTA installed, discarding output)" % (g.syslog(), g.host(), g.pid())


def kernel(g):
    r = g.r
    t = "[%d.%06d]" % (r.randint(0, 9999999), r.randint(0, 999999))
    msg = r.choice([
        "EXT4-fs (sda1): mounted filesystem %s r/w with ordered data mode. Quota mode: none." % g.uuid(),
        "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters." % r.choice([80, 443, 22]),
        "eth0: renamed from veth%s" % g.hexs(7), "br-%s: port 1(veth%s) entered forwarding state" % (g.hexs(12), g.hexs(7)),
        "audit: type=1400 audit(%s.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.firefox\" name=\"/proc/%d/cgroup\" pid=%d comm=\"firefox\" requested_mask=\"r\" denied_mask=\"r\" fsuid=1000 ouid=1000"
        % (g.epoch10(), r.randint(0, 999), r.randint(1, 9999), r.randint(1, 99999), r.randint(1, 99999)),
        "Out of memory: Killed process %d (java) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:%dkB oom_score_adj:0"
        % (r.randint(1, 99999), r.randint(10**6, 10**7), r.randint(10**5, 10**7), r.randint(100, 9999)),
        "[UFW BLOCK] IN=eth0 OUT= MAC=52:54:00:%02x:%02x:%02x:52:54:00:%02x:%02x:%02x:08:00 SRC=%s DST=%s LEN=%d TOS=0x00 PREC=0x00 TTL=%d ID=%d PROTO=TCP SPT=%s DPT=%d WINDOW=%d RES=0x00 SYN URGP=0"
        % (tuple(r.randrange(256) for _ in range(6)) + (g.ip(), g.ip(), r.randint(40, 1500), r.randint(30, 255), r.randint(0, 65535), g.port(), r.choice([22, 23, 3389, 445, 5900]), r.randint(1024, 65535))),
        "nvme nvme0: I/O %d QID %d timeout, completion polled" % (r.randint(1, 999), r.randint(1, 16)),
        "usb 1-1: new high-speed USB device number %d using xhci_hcd" % r.randint(2, 30),
        "Memory cgroup out of memory: Killed process %d (node) total-vm:%dkB" % (r.randint(1, 99999), r.randint(10**5, 10**7)),
        "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (r.randint(2500, 9000), r.randint(2500, 9000), r.randint(20000, 79000)),
        "wireguard: wg0: Handshake for peer %d (%s:%s) did not complete after 5 seconds, retrying (try %d)" % (r.randint(1, 20), g.ip(), g.port(), r.randint(2, 20)),
    ])
    return "%s %s kernel: %s %s" % (g.syslog(), g.host(), t, msg) if r.random() < 0.6 else "%s %s" % (t, msg)


def sshd(g):
    r = g.r
    ip, port = g.ip(), g.port()
    msg = r.choice([
        "Accepted publickey for %s from %s port %s ssh2: ED25519 SHA256:%s" % (g.user(), ip, port, g.b64(32).rstrip("=")),
        "Accepted password for %s from %s port %s ssh2" % (g.user(), ip, port),
        "Failed password for invalid user %s from %s port %s ssh2" % (r.choice(["admin", "test", "oracle", "pi", "ubuntu", "support"]), ip, port),
        "Failed password for root from %s port %s ssh2" % (ip, port),
        "Invalid user %s from %s port %s" % (r.choice(["admin", "ftpuser", "git", "test"]), ip, port),
        "Connection closed by authenticating user root %s port %s [preauth]" % (ip, port),
        "Received disconnect from %s port %s:11: Bye Bye [preauth]" % (ip, port),
        "pam_unix(sshd:session): session opened for user %s(uid=%d) by (uid=0)" % (g.user(), r.randint(1000, 1010)),
        "pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=%s  user=root" % ip,
        "error: kex_exchange_identification: Connection closed by remote host",
        "Disconnected from user %s %s port %s" % (g.user(), ip, port), "Server listening on :: port 22.",
        "PAM 2 more authentication failures; logname= uid=0 euid=0 tty=ssh ruser= rhost=%s" % ip,
        "Connection from %s port %s on %s port 22 rdomain \"\"" % (g.ip6(), port, g.ip6()),
        "message repeated %d times: [ Failed password for root from %s port %s ssh2]" % (r.randint(2, 9), ip, port),
    ])
    return "%s %s sshd[%s]: %s" % (g.syslog(), g.host(), g.pid(), msg)


def postfix(g):
    r = g.r
    qid = rs(r, 10, "0123456789ABCDEF")
    msg = r.choice([
        "postfix/smtp[%s]: %s: to=<%s>, relay=%s[%s]:25, delay=%.2f, delays=%.2f/0.01/%.2f/%.2f, dsn=2.0.0, status=sent (250 2.0.0 OK  %s %s - gsmtp)" % (
            g.pid(), qid, g.email(), "mx." + g.domain(), g.ip(), r.uniform(0, 9), r.uniform(0, 2), r.uniform(0, 2), r.uniform(0, 2), g.epoch10(), rs(r, 20, ALNUM)),
        "postfix/qmgr[%s]: %s: from=<%s>, size=%d, nrcpt=1 (queue active)" % (g.pid(), qid, g.email(), r.randint(300, 90000)),
        "postfix/smtpd[%s]: connect from unknown[%s]" % (g.pid(), g.ip()),
        "postfix/smtpd[%s]: warning: unknown[%s]: SASL LOGIN authentication failed: UGFzc3dvcmQ6" % (g.pid(), g.ip()),
        "postfix/smtpd[%s]: NOQUEUE: reject: RCPT from unknown[%s]: 554 5.7.1 <%s>: Relay access denied; from=<%s> to=<%s> proto=ESMTP helo=<%s>" % (
            g.pid(), g.ip(), g.email(), g.email(), g.email(), g.domain()),
        "postfix/cleanup[%s]: %s: message-id=<%s@%s>" % (g.pid(), qid, g.uuid(), g.domain()),
        "postfix/smtp[%s]: %s: to=<%s>, relay=none, delay=%.1f, delays=%.1f/0/%.1f/0, dsn=4.4.1, status=deferred (connect to mx.%s[%s]:25: Connection timed out)" % (
            g.pid(), qid, g.email(), r.uniform(0, 900), r.uniform(0, 900), r.uniform(0, 30), g.domain(), g.ip()),
        "dovecot: imap-login: Login: user=<%s>, method=PLAIN, rip=%s, lip=%s, mpid=%d, TLS, session=<%s>" % (g.email(), g.ip(), g.ip(), r.randint(100, 99999), rs(r, 16, ALNUM)),
        "dovecot: auth: passwd-file(%s,%s): unknown user" % (g.email(), g.ip()),
        "dovecot: imap(%s)<%d><%s>: Disconnected: Logged out in=%d out=%d deleted=0 expunged=0 trashed=0 hdr_count=0 hdr_bytes=0 body_count=0 body_bytes=0" % (
            g.email(), r.randint(100, 99999), rs(r, 16, ALNUM), r.randint(0, 9999), r.randint(0, 99999)),
    ])
    return "%s %s %s" % (g.syslog(), g.host(), msg)


def metrics(g):
    r = g.r
    k = r.randrange(6)
    if k == 0:
        return "latency_ms=%d tokens=%d secretary=%s" % (r.randint(1, 900), r.randint(0, 50), g.user())
    if k == 1:
        return '%s{method="%s",code="%d",handler="%s"} %d' % (r.choice(["http_requests_total", "http_request_duration_seconds_count", "api_token_validations_total"]),
                                                              r.choice(METHODS), r.choice(STATUSES), g.path().split("?")[0], r.randint(0, 10**6))
    if k == 2:
        return "%s.%s:%d|%s|#env:prod,service:%s" % (r.choice(["api", "ingest", "auth"]), r.choice(["requests", "token.refresh", "password.reset.sent", "queue.depth"]),
                                                    r.randint(0, 5000), r.choice(["c", "g", "ms", "h"]), r.choice(APPS))
    if k == 3:
        return "ts=%s level=info msg=\"stats\" rps=%.1f p50_ms=%d p99_ms=%d errors=%d tokens_in=%d tokens_out=%d secret_lookups=%d" % (
            g.iso(), r.uniform(0, 3000), r.randint(1, 50), r.randint(50, 900), r.randint(0, 40), r.randint(0, 10**5), r.randint(0, 10**5), r.randint(0, 900))
    if k == 4:
        return "# HELP %s %s" % (r.choice(["process_cpu_seconds_total", "go_goroutines", "auth_bearer_tokens_active"]), r.choice(["Total user and system CPU time spent in seconds.", "Number of goroutines that currently exist.", "Bearer tokens currently active."]))
    return "mem total=%dM used=%dM free=%dM shared=%dM buff/cache=%dM available=%dM" % tuple(r.randint(10, 64000) for _ in range(6))


def timestamps(g):
    r = g.r
    return r.choice([
        "flush complete ts=%s events=%d" % (g.epoch13(), r.randint(1, 9999)),
        "job %s finished in %s (started_at=%s)" % (r.choice(["nightly-backup", "reindex", "token-cleanup", "invoice-run"]), g.dur(), g.epoch10()),
        "received batch first=%s last=%s count=%d" % (g.epoch16(), g.epoch16(), r.randint(1, 999)),
        "clock skew detected: local=%s remote=%s drift=%s" % (g.epoch19(), g.epoch19(), g.dur()),
        "lease renewed until %s (ttl %s)" % (g.iso_us(), g.dur()),
        "%s snapshot %s written, %d bytes, took %s" % (g.iso(), g.epoch10(), r.randint(1000, 10**9), g.dur()),
    ])


def orders(g):
    r = g.r
    return r.choice([
        "order %s shipped via DHL, tracking %s" % (g.order(), "JJD" + rs(r, 18, DIGITS)),
        "order %s shipped via UPS, tracking 1Z%s%s" % (g.order(), rs(r, 6, "0123456789ABCDEFGHJKLMNPRSTVWXYZ"), rs(r, 10, DIGITS)),
        "invoice INV-%s-%s generated for customer %s, total %d.%02d EUR" % (r.randint(2020, 2024), rs(r, 6, DIGITS), r.randint(1, 10**6), r.randint(1, 9999), r.randint(0, 99)),
        "refund %s issued for order %s" % (g.order(), g.order()),
        "payment %s captured: card ending in %s, brand=visa, exp=%02d/%d" % ("pi_" + rs(r, 24, ALNUM), rs(r, 4, DIGITS), r.randint(1, 12), r.randint(25, 30)),
        "charge declined for order %s: card ending %s (do_not_honor)" % (g.order(), rs(r, 4, DIGITS)),
        "shipment %s label printed (USPS %s)" % (g.order(), "9400" + rs(r, 18, DIGITS)),
        "customer %s merged into %s" % (g.order(), g.order()),
        "ticket #%d: customer reports card 4111 **** **** 1111 was charged twice" % r.randint(1000, 99999),
        "reconciliation: %d payouts, batch %s, settlement %s" % (r.randint(1, 500), g.order(), g.order()),
        "dd.trace_id=%s dd.span_id=%s order=%s status=paid" % (g.trace_dec(), g.trace_dec(), g.order()),
    ])


def versions(g):
    r = g.r
    return r.choice([
        "%s version %d.%d.%d.%d starting" % (r.choice(APPS), r.randint(1, 9), r.randint(0, 30), r.randint(0, 99), r.randint(0, 9999)),
        "Setting up libssl3:amd64 (3.0.%d-1~deb12u%d) ..." % (r.randint(1, 15), r.randint(1, 3)),
        (lambda p, a, b, c: "Unpacking %s (%d.%d.%d-1) over (%d.%d.%d-1) ..." % (p, a, b, c + 1, a, b, c))(
            r.choice(["nginx", "openssh-server", "curl", "tzdata"]), r.randint(1, 9), r.randint(0, 30), r.randint(0, 20)),
        "Get:%d http://deb.debian.org/debian bookworm-updates/main amd64 %s amd64 %d.%d.%d [%d kB]" % (r.randint(1, 90), r.choice(["libc6", "openssl", "bash"]), r.randint(1, 3), r.randint(0, 40), r.randint(0, 9), r.randint(10, 9000)),
        "Using Python %d.%d.%d, pip %d.%d.%d, setuptools %d.%d.%d" % tuple(r.randint(0, 70) for _ in range(9)),
        "kernel 6.1.0-%d-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.%d-1 (2024-%02d-%02d) x86_64" % (r.randint(10, 21), r.randint(60, 90), r.randint(1, 12), r.randint(1, 28)),
        "driver version 535.%d.%d, CUDA 12.%d, firmware 1.2.3.4" % (r.randint(0, 200), r.randint(0, 20), r.randint(0, 4)),
        "upgrade available: v%d.%d.%d -> v%d.%d.%d (changelog: https://github.com/acme/%s/releases)" % (tuple(r.randint(0, 20) for _ in range(6)) + (r.choice(APPS),)),
    ])


PROSE = [
    "password reset email sent to user {n}", "Token refresh succeeded", "the bearer of bad news is here", "Authorization failed for user {user}",
    "could not read password file: permission denied", "user {user} changed password", "Password policy: minimum length is 12 characters",
    "secret rotation completed for 3 of 4 services", "no api key configured for provider acme; falling back to anonymous access",
    "token expired; requesting a new one", "refusing to log credentials: redaction is enabled", "bearer auth is enabled for /api",
    "the secret to good sourdough is patience", "password manager extension detected", "API key rotation reminder sent to {email}",
    "Tokens are valid for 15 minutes", "auth: 3 failed password attempts for {user}, account locked for 15m",
    "secretary {user} scheduled a meeting", "Authorization header missing", "missing bearer token", "invalid token signature",
    "WARNING: password is shorter than recommended", "access key will expire in 7 days", "private key permissions are too open (0644); expected 0600",
    "OpenSSL: unable to load private key from /etc/ssl/private/{app}.key", "refusing to start: SECRET_KEY must be set", "github token scopes insufficient: need repo",
    "Passwords must contain at least one digit", "reading secrets from /run/secrets", "loaded 12 secrets from vault (values hidden)",
    "sudo: a password is required", "pam_unix(sudo:auth): conversation failed", "gpg: signing failed: No secret key",
    "The AWS access key id you provided does not exist in our records.", "slack notification sent to #deploys",
    "jwt verification disabled in development mode", "certificate for {domain} renewed, expires in 89 days",
    "ssh-keygen: generating public/private ed25519 key pair.", "Your identification has been saved in /home/{user}/.ssh/id_ed25519",
    "requests are authorized by bearer token or session cookie", "bearer tokens are rejected over plain HTTP",
]


def prose(g):
    r = g.r
    p = r.choice(PROSE).format(n=g.n(), user=g.user(), email=g.email(), domain=g.domain(), app=r.choice(APPS))
    k = r.randrange(4)
    if k == 0:
        return "%s %s %s[%s]: %s" % (g.syslog(), g.host(), r.choice(APPS), g.pid(), p)
    if k == 1:
        return "%s %s %s" % (g.iso(), r.choice(["INFO", "WARN", "ERROR", "DEBUG", "info", "warn"]), p)
    if k == 2:
        return 'time="%s" level=%s msg="%s"' % (g.iso(), r.choice(["info", "warning", "error"]), p)
    return p


HELP = [
    "Usage: dbctl [OPTIONS] COMMAND",
    "  -h, --help                 show this help and exit",
    "      --password-stdin       Take the password from stdin",
    "      --password-file PATH   Read the password from PATH",
    "      --token-file string    Path to a file holding the API token",
    "      --api-key-file FILE    File with the API key",
    "      --secret-name NAME     Kubernetes secret to mount",
    "  -p                         Prompt for a password (never pass it on the command line)",
    "usage: mysql [--host HOST] [--user USER] [--password]",
    "Options: --insecure --no-verify --password",
    "  -u, --username string      Username",
    "  -v, --verbose              Increase verbosity",
    "Flags:",
    "      --kubeconfig string    Path to the kubeconfig file",
    "See 'docker login --help'.",
    "Run 'gh auth login' to authenticate with GitHub.",
    "docker login -u {user} --password-stdin registry.{domain}",
    "Error: unknown flag: --tokn",
    "hint: use --token-file instead of passing the token in argv",
]


def help_output(g):
    return g.r.choice(HELP).format(user=g.user(), domain=g.domain())


def docker(g):
    r = g.r
    k = r.randrange(4)
    if k == 0:
        return 'time="%s" level=%s msg="%s"%s' % (g.iso_us(), r.choice(["info", "warning", "error"]), r.choice([
            "starting containerd", "loading plugin \\\"io.containerd.snapshotter.v1.overlayfs\\\"...", "ignoring event", "shim disconnected",
            "cleaning up dead shim", "Container failed to exit within 10s of signal 15 - using the force", "API listen on /run/docker.sock",
            "Pull completed", "Attempting next endpoint for pull after error: failed to resolve reference"]),
            r.choice(["", " id=%s namespace=moby" % g.sha256(), " revision=%s version=1.7.%d" % (g.sha1(), r.randint(0, 20)), " type=io.containerd.runtime.v2.task"]))
    if k == 1:
        return "%s: Pulling from library/%s" % (r.choice(["1.25.4", "latest", "16-alpine", "3.12-slim"]), r.choice(["nginx", "postgres", "python", "redis"]))
    if k == 2:
        return "Digest: sha256:%s" % g.sha256()
    return "Step %d/%d : %s" % (r.randint(1, 20), r.randint(20, 30), r.choice(["RUN npm ci --omit=dev", "COPY --from=build /app/dist /app", "RUN pip install --no-cache-dir -r requirements.txt",
                                                                              "ENV NODE_ENV=production", "EXPOSE 8080", "HEALTHCHECK CMD curl -f http://localhost:8080/healthz || exit 1"]))


def redis_mysql(g):
    r = g.r
    k = r.randrange(3)
    if k == 0:
        return "%d:%s %02d %s 2024 %02d:%02d:%02d.%03d %s %s" % (r.randint(1, 999), r.choice("MSCX"), r.randint(1, 28), r.choice(MONTHS), r.randint(0, 23), r.randint(0, 59), r.randint(0, 59),
                                                               r.randint(0, 999), r.choice("*#-."), r.choice(["Ready to accept connections tcp", "Background saving started by pid %d" % r.randint(10, 9999),
                                                                                                            "DB saved on disk", "%d changes in 60 seconds. Saving..." % r.randint(1, 9999),
                                                                                                            "WARNING Memory overcommit must be enabled!", "Server initialized"]))
    if k == 1:
        return "%s %d [%s] [MY-%06d] [%s] %s" % (g.iso_us().replace("+00:00", "Z"), r.randint(0, 99), r.choice(["Warning", "System", "Note"]), r.randint(10000, 13999), r.choice(["Server", "InnoDB"]),
                                                r.choice(["CA certificate ca.pem is self signed.", "/usr/sbin/mysqld: ready for connections. Version: '8.0.36'  socket: '/var/run/mysqld/mysqld.sock'  port: 3306  MySQL Community Server - GPL.",
                                                          "Access denied for user '%s'@'%s' (using password: YES)" % (g.user(), g.ip()), "Plugin mysqlx reported: 'Unsuccessful login attempt: Invalid user or password'",
                                                          "Buffer pool(s) load completed at 240501 12:00:00"]))
    return "%s %s" % (g.iso(), r.choice(["[mongod] {\"t\":{\"$date\":\"%s\"},\"s\":\"I\",\"c\":\"ACCESS\",\"id\":20250,\"ctx\":\"conn%d\",\"msg\":\"Authentication succeeded\",\"attr\":{\"mechanism\":\"SCRAM-SHA-256\",\"principalName\":\"%s\",\"authenticationDatabase\":\"admin\",\"remote\":\"%s:%s\"}}" % (g.iso(), r.randint(1, 9999), g.user(), g.ip(), g.port()),
                                         "[rabbitmq] connection <0.%d.0> (%s:%s -> %s:5672): user '%s' authenticated and granted access to vhost '/'" % (r.randint(100, 9999), g.ip(), g.port(), g.ip(), g.user())]))


def haproxy(g):
    r = g.r
    return '%s %s haproxy[%s]: %s:%s [%02d/%s/2024:%02d:%02d:%02d.%03d] fe_https~ be_%s/%s-%d %d/%d/%d/%d/%d %d %d - - ---- %d/%d/%d/%d/0 0/0 "%s %s HTTP/1.1"' % (
        g.syslog(), g.host(), g.pid(), g.ip(), g.port(), r.randint(1, 28), r.choice(MONTHS), r.randint(0, 23), r.randint(0, 59), r.randint(0, 59), r.randint(0, 999),
        r.choice(APPS), r.choice(APPS), r.randint(1, 9), r.randint(0, 50), r.randint(0, 5), r.randint(0, 5), r.randint(1, 900), r.randint(1, 950), r.choice(STATUSES),
        r.randint(0, 90000), r.randint(1, 900), r.randint(1, 900), r.randint(0, 90), r.randint(0, 9), r.choice(METHODS), g.path())


def hashes(g):
    r = g.r
    return r.choice([
        "commit %s" % g.sha1(), "Merge pull request #%d from acme/%s-%s" % (r.randint(1, 9999), g.user(), r.choice(WORDS)),
        "HEAD is now at %s %s" % (g.short(), r.choice(["fix token refresh race", "bump deps", "rotate secrets docs", "add password strength meter"])),
        "sha256sum: %s  apsiod_1.4.2_amd64.deb" % g.sha256(), "md5 %s  backup-%s.tar.zst" % (g.md5(), g.epoch10()),
        "cache key npm-%s restored" % g.sha256(), 'etag: W/"%s"' % g.md5(), "request_id=%s trace_id=%s span_id=%s" % (g.uuid(), g.hexs(32), g.hexs(16)),
        "remote: Resolving deltas: 100%% (%d/%d), completed with %d local objects." % (r.randint(1, 900), r.randint(900, 2000), r.randint(1, 90)),
        "   %s..%s  main -> main" % (g.short(), g.short()), "session %s resumed" % g.uuid(),
        "uploaded blob sha1:%s (%d bytes)" % (g.sha1(), r.randint(1, 10**8)), "object %s deleted from bucket acme-artifacts" % g.hexs(32),
        "idempotency key %s replayed" % g.uuid(), "x-request-id: %s" % g.hexs(32), "build %s id %s" % (r.randint(1, 9999), g.hexs(24)),
        "principal AIDA%s assumed role AROA%s:%s" % (rs(r, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), rs(r, 17, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), g.user()),
        "twilio message SM%s queued, account AC%s" % (g.hexs(32), g.hexs(32)),
    ])


def base64_payloads(g):
    r = g.r
    return r.choice([
        "payload=%s" % g.b64(r.randint(12, 90)), "data: %s" % g.b64(r.randint(12, 60)),
        "webhook body (base64): %s" % g.b64(r.randint(30, 120)), "next cursor %s" % g.b64json({"id": r.randint(1, 10**6), "ts": int(g.epoch10())}),
        "state=%s" % g.b64json({"return_to": "/dashboard", "nonce": g.hexs(16)}), "MIID%s" % g.b64(45)[:60],
        "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----", "-----BEGIN PUBLIC KEY-----", "-----END PUBLIC KEY-----",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s %s@%s" % (g.b64(32)[:43], g.user(), g.host()),
        "Content-Transfer-Encoding: base64",
        "x-amz-id-2: %s" % g.b64(48), "msg id %s" % g.b64(12).rstrip("="),
    ])


def http_headers(g):
    r = g.r
    return r.choice([
        "< HTTP/1.1 %d %s" % (r.choice([200, 401, 403, 404]), r.choice(["OK", "Unauthorized", "Forbidden", "Not Found"])),
        'WWW-Authenticate: Bearer realm="api", error="invalid_token", error_description="The access token expired"',
        'WWW-Authenticate: Basic realm="metrics", charset="UTF-8"', "> Accept: application/json", "> User-Agent: %s" % g.ua(),
        "< Content-Type: application/json; charset=utf-8", "< Cache-Control: no-store", "< Strict-Transport-Security: max-age=31536000; includeSubDomains",
        "< Set-Cookie: theme=dark; Path=/; SameSite=Lax", "> Host: %s" % g.domain(), "< X-RateLimit-Remaining: %d" % r.randint(0, 5000),
        "< Content-Length: %d" % r.randint(0, 99999), "> X-Request-Id: %s" % g.uuid(), "< Vary: Accept-Encoding, Authorization",
        "* Connected to %s (%s) port 443" % (g.domain(), g.ip()), "* SSL certificate verify ok.", "* using HTTP/2",
        "CORS: allowed headers Content-Type, Authorization, X-Requested-With",
    ])


def fail2ban_misc(g):
    r = g.r
    return r.choice([
        "%s fail2ban.actions        [%d]: NOTICE  [sshd] Ban %s" % (g.space_ts(), r.randint(100, 9999), g.ip()),
        "%s fail2ban.filter         [%d]: INFO    [sshd] Found %s - %s" % (g.space_ts(), r.randint(100, 9999), g.ip(), g.space_ts()[:19]),
        "%s %s chronyd[%s]: Selected source %s (%s.pool.ntp.org)" % (g.syslog(), g.host(), g.pid(), g.ip(), r.randint(0, 3)),
        "%s %s systemd-resolved[%s]: Using degraded feature set UDP instead of UDP+EDNS0 for DNS server %s." % (g.syslog(), g.host(), g.pid(), g.ip()),
        "%s %s NetworkManager[%s]: <info>  [%s.%04d] dhcp4 (eth0): state changed new lease, address=%s" % (g.syslog(), g.host(), g.pid(), g.epoch10(), r.randint(0, 9999), g.ip()),
        "%s %s dnsmasq[%s]: query[AAAA] %s from %s" % (g.syslog(), g.host(), g.pid(), "api." + g.domain(), g.ip()),
        "%s %s avahi-daemon[%s]: Registering new address record for %s on eth0.*." % (g.syslog(), g.host(), g.pid(), g.ip6()),
        "%s %s smartd[%s]: Device: /dev/sda [SAT], SMART Usage Attribute: 194 Temperature_Celsius changed from %d to %d" % (g.syslog(), g.host(), g.pid(), r.randint(25, 50), r.randint(25, 50)),
        "%s %s apsiod[%s]: forwarded %d lines (%d redacted) in %s" % (g.syslog(), g.host(), g.pid(), r.randint(1, 99999), r.randint(0, 99), g.dur()),
        "%s %s polkitd[%s]: Registered Authentication Agent for unix-session:%d (system bus name :1.%d)" % (g.syslog(), g.host(), g.pid(), r.randint(1, 99), r.randint(10, 999)),
    ])


def oauth_flow(g):
    r = g.r
    return r.choice([
        "token exchange succeeded for client_id=web-frontend scope=\"openid profile\" expires_in=3600",
        "%s INFO oauth: authorization code redeemed, grant_type=authorization_code client_id=%s" % (g.iso(), r.choice(["web", "cli", "mobile"])),
        "%s WARN oidc: id token audience mismatch (aud=%s, expected=%s)" % (g.iso(), r.choice(APPS), r.choice(APPS)),
        "%s INFO keycloak: type=LOGIN, realmId=acme, clientId=%s, userId=%s, ipAddress=%s, auth_method=openid-connect, username=%s" % (g.iso(), r.choice(APPS), g.uuid(), g.ip(), g.email()),
        "%s INFO keycloak: type=REFRESH_TOKEN, realmId=acme, clientId=%s, userId=%s, ipAddress=%s, token_id=%s" % (g.iso(), r.choice(APPS), g.uuid(), g.ip(), g.uuid()),
        "%s DEBUG jwks: fetched 3 keys from https://auth.%s/.well-known/jwks.json (kid=%s)" % (g.iso(), g.domain(), g.hexs(16)),
        "%s INFO vault: lease %s renewed (ttl=768h)" % (g.iso(), "database/creds/readonly/" + rs(r, 24, ALNUM)),
        "%s INFO vault: secret kv/data/%s read by entity %s (version=%d)" % (g.iso(), r.choice(APPS), g.uuid(), r.randint(1, 40)),
        "%s INFO api key ak_%s… used from %s" % (g.iso(), rs(r, 4, LOWER + DIGITS), g.ip()),
    ])


FAMILIES = [
    (nginx_access, 14), (nginx_access_timed, 4), (nginx_error, 4), (apache, 3), (python_tb, 5), (python_logging, 6), (java, 6), (go, 6),
    (rust, 3), (node, 5), (sql, 6), (postgres_server, 3), (json_event, 8), (kubernetes, 6), (systemd, 7), (cron, 3), (kernel, 5),
    (sshd, 6), (postfix, 4), (metrics, 4), (timestamps, 3), (orders, 4), (versions, 2), (prose, 6), (help_output, 2), (docker, 3),
    (redis_mysql, 3), (haproxy, 2), (hashes, 4), (base64_payloads, 3), (http_headers, 3), (fail2ban_misc, 4), (oauth_flow, 3),
]


def make_lines(rng, count):
    """`count` distinct ordinary log lines."""
    g = G(rng)
    funcs = [f for f, _ in FAMILIES]
    weights = [w for _, w in FAMILIES]
    seen, out = set(), []
    while len(out) < count:
        line = rng.choices(funcs, weights)[0](g)
        if line in seen or "\n" in line:
            continue
        seen.add(line)
        out.append(line)
    return out


def main():
    rng = random.Random(SEED)
    here = os.path.dirname(os.path.abspath(__file__))
    lines = make_lines(rng, COUNT)
    with open(os.path.join(here, "negatives.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    print("negatives.txt: %d lines" % len(lines), file=sys.stderr)


if __name__ == "__main__":
    main()
