#!/usr/bin/python3
"""Writes positives.tsv: one redaction case a line, `RULE<TAB>LINE`.

LINE is a log line holding exactly one secret, bracketed by U+27E6 / U+27E7 around exactly
the characters the rule replaces. Every secret is FAKE: random characters in the documented
shape, drawn from a seeded generator, so the file is reproducible:

    /usr/bin/python3 generate_positives.py            # writes positives.tsv next to this file

`case(rng, rule)` is also used by generate_mix.py to plant secrets in the benchmark mix.
Standard library only.
"""

import base64
import json
import os
import random
import string
import sys

SEED = 6750
OPEN, CLOSE = "\u27e6", "\u27e7"

DIGITS = string.digits
UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
# Characters of a generated password: nothing that ends a key=value value (space & ; , quotes
# closing brackets), no `=`, `@`, `:`, `/`, `#`, `<`, `>` that could look like another shape.
PW = ALNUM + "!$%*+-_.~^"

RULES = [
    "password", "secret", "token", "api-key", "authorization-header", "bearer-token",
    "url-userinfo", "private-key", "jwt",
    "aws-access-key-id", "aws-secret-access-key", "google-api-key", "azure-storage-key",
    "github-token", "gitlab-token", "slack-token", "slack-webhook", "stripe-key",
    "sendgrid-key", "twilio-key", "npm-token", "pypi-token",
    "card-number",
    "email", "ipv4", "ipv6",
]
PERSONAL = {"email", "ipv4", "ipv6"}


def rs(rng, n, alphabet=ALNUM):
    return "".join(rng.choice(alphabet) for _ in range(n))


# ---------------------------------------------------------------- fillers (never secrets)

HOSTS = ["web-01", "web-02", "api-7f9c4b", "worker-3", "ingest-2", "edge-fra-4", "build-agent-07",
         "k8s-node-5", "app-blue-2", "batch-1", "gw-ams-1"]
APPS = ["api", "billing", "orders", "auth-svc", "notifier", "ingest", "scheduler", "gateway", "reports"]
USERS = ["alice", "bob", "carol", "deploy", "ci-bot", "backup", "svc-reporting", "mailer", "grafana"]
UAS = ["Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
       "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15",
       "python-requests/2.31.0", "curl/8.5.0", "Go-http-client/2.0", "okhttp/4.12.0",
       "Slackbot 1.0 (+https://api.slack.com/robots)", "axios/1.6.8"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


class F:
    """Random fillers for templates: `{ts}`, `{host}` ... in a template string."""

    def __init__(self, rng):
        self.r = rng

    def iso(self):
        r = self.r
        return "2024-%02d-%02dT%02d:%02d:%02d.%03dZ" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                                                         r.randint(0, 59), r.randint(0, 59), r.randint(0, 999))

    def syslog(self):
        r = self.r
        return "%s %2d %02d:%02d:%02d" % (r.choice(MONTHS), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59),
                                          r.randint(0, 59))

    def clf(self):
        r = self.r
        return "%02d/%s/2024:%02d:%02d:%02d +0000" % (r.randint(1, 28), r.choice(MONTHS), r.randint(0, 23),
                                                      r.randint(0, 59), r.randint(0, 59))

    def values(self):
        r = self.r
        level = r.choice(["INFO", "DEBUG", "WARN", "ERROR"])
        return {
            "ts": self.iso(), "syslog": self.syslog(), "clf": self.clf(), "host": r.choice(HOSTS),
            "app": r.choice(APPS), "pid": str(r.randint(300, 65000)), "user": r.choice(USERS),
            "n": str(r.randint(2, 99999)), "uuid": uuid(r), "hex8": rs(r, 8, HEX), "hex16": rs(r, 16, HEX),
            "hex40": rs(r, 40, HEX), "hex64": rs(r, 64, HEX), "ua": r.choice(UAS), "lvl": level,
            "lvlj": level.lower(), "ms": str(r.randint(1, 900)), "bytes": str(r.randint(0, 48000)),
            "port": str(r.randint(1024, 65000)), "acct": "7" + rs(r, 11, DIGITS),
            "a16": rs(r, 16, UPPER + DIGITS), "order": "9" + rs(r, 9, DIGITS), "hex32": rs(r, 32, HEX),
        }


def uuid(r):
    h = rs(r, 32, HEX)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], r.choice("89ab"), h[17:20], h[20:32])


def b64(data):
    return base64.b64encode(data).decode()


def b64url(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


# ---------------------------------------------------------------- secrets (all fake)

def pw(r):
    return rs(r, 1, ALNUM) + rs(r, r.randint(9, 23), PW)


WORDS = ["copper", "lantern", "orbit", "velvet", "maple", "quartz", "harbor", "falcon", "tundra", "ember",
         "willow", "cobalt", "saffron", "glacier", "meadow", "pixel", "raven", "summit"]


def phrase(r):
    return " ".join(r.choice(WORDS) for _ in range(r.randint(3, 5))) + " " + str(r.randint(10, 99))


def opaque(r, lo=24, hi=48):
    return rs(r, r.randint(lo, hi), ALNUM)


def vault_token(r):
    return "hvs." + rs(r, 92, B64URL)


def telegram_token(r):
    return str(r.randint(100000000, 999999999)) + ":AA" + rs(r, 33, B64URL)


def kubeadm_token(r):
    return rs(r, 6, LOWER + DIGITS) + "." + rs(r, 16, LOWER + DIGITS)


def basic(r):
    return "Basic " + b64(("%s:%s" % (r.choice(USERS), pw(r))).encode())


def bearer_opaque(r):
    kind = r.randrange(3)
    if kind == 0:
        return "ya29." + rs(r, r.randint(60, 120), B64URL)
    if kind == 1:
        return rs(r, r.randint(32, 48), ALNUM + "-._~")[:-1] + rs(r, 1, ALNUM)
    return rs(r, 43, B64URL) + "="


def jwt(r, alg=None):
    alg = alg or r.choice(["HS256", "RS256", "ES256"])
    header = {"alg": alg, "typ": "JWT"}
    if alg != "HS256":
        header = {"alg": alg, "kid": rs(r, 16, HEX), "typ": "JWT"}
    now = r.randint(1714000000, 1730000000)
    payload = {"iss": "https://auth.example.com", "sub": "user-%d" % r.randint(1, 999999), "aud": "api",
               "iat": now, "exp": now + 3600, "jti": rs(r, 16, HEX)}
    if r.random() < 0.5:
        payload["scope"] = "orders:read orders:write"
    sig_len = {"HS256": 43, "RS256": 342, "ES256": 86}[alg]
    return "%s.%s.%s" % (b64url(json.dumps(header, separators=(",", ":")).encode()),
                         b64url(json.dumps(payload, separators=(",", ":")).encode()), rs(r, sig_len, B64URL))


PEM_LEAD = {
    "RSA PRIVATE KEY": "MIIEpAIBAAKCAQEA",
    "PRIVATE KEY": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ",
    "EC PRIVATE KEY": "MHcCAQEEI",
    "ENCRYPTED PRIVATE KEY": "MIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkqhkiG9w0BBQwwDgQI",
    "OPENSSH PRIVATE KEY": "b3BlbnNzaC1rZXktdjEAAAAA",
    "DSA PRIVATE KEY": "MIIBuwIBAAKBgQD",
}
PEM_LEN = {"RSA PRIVATE KEY": 1588, "PRIVATE KEY": 1620, "EC PRIVATE KEY": 160, "ENCRYPTED PRIVATE KEY": 1700,
           "OPENSSH PRIVATE KEY": 390, "DSA PRIVATE KEY": 620}


def pem(r, label, sep):
    body = PEM_LEAD[label] + rs(r, PEM_LEN[label] - len(PEM_LEAD[label]), B64)
    if label != "OPENSSH PRIVATE KEY":
        body = body[:-2] + "=="
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN %s-----%s%s%s-----END %s-----" % (label, sep, sep.join(lines), sep, label)


def akid(r, prefix=None):
    return (prefix or r.choice(["AKIA", "ASIA", "ABIA", "ACCA", "AKIA", "ASIA"])) + rs(r, 16, UPPER + DIGITS)


def aws_secret(r):
    return rs(r, 40, B64)


def gapi(r):
    return "AIza" + rs(r, 35, B64URL)


def azure88(r):
    return rs(r, 86, B64) + "=="


def azure44(r):
    return rs(r, 43, B64) + "="


def github(r, prefix=None):
    prefix = prefix or r.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
    if prefix == "github_pat_":
        return "github_pat_" + rs(r, 22, ALNUM) + "_" + rs(r, 59, ALNUM)
    return prefix + rs(r, 36, ALNUM)


def gitlab(r, prefix="glpat-"):
    return prefix + rs(r, 20, B64URL)[:-1] + rs(r, 1, ALNUM)


def slack(r, prefix):
    if prefix == "xapp-":
        return "xapp-1-A0%s-%s-%s" % (rs(r, 9, UPPER + DIGITS), rs(r, 13, DIGITS), rs(r, 64, HEX))
    if prefix in ("xoxb-", "xoxr-", "xoxs-"):
        return "%s%s-%s-%s" % (prefix, rs(r, 12, DIGITS), rs(r, 13, DIGITS), rs(r, 24, ALNUM))
    return "%s%s-%s-%s-%s" % (prefix, rs(r, 12, DIGITS), rs(r, 12, DIGITS), rs(r, 13, DIGITS), rs(r, 32, HEX))


def slack_hook(r):
    return "T%s/B%s/%s" % (rs(r, 8, UPPER + DIGITS), rs(r, 10, UPPER + DIGITS), rs(r, 24, ALNUM))


def stripe(r, prefix):
    return prefix + (rs(r, 24, ALNUM) if r.random() < 0.5 else "51" + rs(r, 97, ALNUM))


def sendgrid(r):
    return "SG.%s.%s" % (rs(r, 22, B64URL), rs(r, 43, B64URL))


def twilio(r):
    return "SK" + rs(r, 32, HEX)


def npm(r):
    return "npm_" + rs(r, 36, ALNUM)


def pypi(r):
    return "pypi-AgEIcHlwaS5vcmc" + rs(r, r.randint(110, 160), B64URL)


def luhn_digit(partial):
    total = 0
    for i, ch in enumerate(reversed(partial)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


CARD_TEST_NUMBERS = ["4111111111111111", "4242424242424242", "4012888888881881", "4222222222222",
                     "5555555555554444", "5500000000000004", "5200828282828210", "2223003122003222",
                     "378282246310005", "371449635398431", "6011111111111117", "6011000990139424",
                     "3530111333300000", "3566002020360505", "30569309025904", "38520000023237",
                     "6200000000000005", "4000056655665556"]
CARD_PREFIXES = [("4", 16), ("4", 13), ("4", 19), ("51", 16), ("53", 16), ("55", 16), ("2221", 16),
                 ("2720", 16), ("2345", 16), ("34", 15), ("37", 15), ("6011", 16), ("65", 16), ("644", 16),
                 ("649", 19), ("3528", 16), ("3589", 16), ("36", 14), ("38", 14), ("300", 14), ("305", 14),
                 ("62", 16), ("62", 19)]


def card_digits(r):
    if r.random() < 0.4:
        return r.choice(CARD_TEST_NUMBERS)
    prefix, length = r.choice(CARD_PREFIXES)
    partial = prefix + rs(r, length - len(prefix) - 1, DIGITS)
    return partial + luhn_digit(partial)


def card_format(r, d):
    style = r.randrange(3)
    if style == 0:
        return d
    sep = " " if style == 1 else "-"
    n = len(d)
    if n == 15:
        groups = [4, 6, 5]
    elif n == 14:
        groups = [4, 6, 4]
    elif n == 13:
        groups = [4, 4, 5]
    else:
        groups = [4] * (n // 4) + ([n % 4] if n % 4 else [])
    out, i = [], 0
    for g in groups:
        out.append(d[i:i + g])
        i += g
    return sep.join(out)


def card(r):
    return card_format(r, card_digits(r))


EMAIL_LOCAL = ["alice", "bob.smith", "carol+billing", "d.ivanova", "ops-team", "j_doe", "noreply", "m.mueller"]
EMAIL_DOMAIN = ["example.com", "example.org", "mail.example.net", "corp.example.co.uk", "example.io"]


def email(r):
    return "%s%s@%s" % (r.choice(EMAIL_LOCAL), r.choice(["", str(r.randint(1, 99))]), r.choice(EMAIL_DOMAIN))


def ipv4(r):
    kind = r.randrange(4)
    if kind == 0:
        return "203.0.113.%d" % r.randint(1, 254)
    if kind == 1:
        return "198.51.100.%d" % r.randint(1, 254)
    if kind == 2:
        return "10.%d.%d.%d" % (r.randint(0, 255), r.randint(0, 255), r.randint(1, 254))
    return "%d.%d.%d.%d" % (r.randint(11, 223), r.randint(0, 255), r.randint(0, 255), r.randint(1, 254))


def ipv6(r, form=None):
    form = form if form is not None else r.randrange(4)
    g = lambda: "%x" % r.randint(1, 0xffff)
    if form == 0:
        return "2001:db8::%s" % g()
    if form == 1:
        return "2001:0db8:%04x:%04x:0000:%04x:%04x:%04x" % tuple(r.randint(0, 0xffff) for _ in range(5))
    if form == 2:
        return "fe80::%s:%s:%s:%s" % (g(), g(), g(), g())
    return "2001:db8:%s:%s::%s:%s" % (g(), g(), g(), g())


# ---------------------------------------------------------------- templates
#
# Each template is (text, secret function). `{S}` marks the secret; other `{name}`s are
# fillers from F.values(). Literal braces are doubled.

T = {}

T["password"] = [
    ("{ts} {lvl} config loaded: DB_HOST=db-primary.internal DB_PORT=5432 DB_USER=orders DB_PASSWORD={S} DB_NAME=orders", pw),
    ("{syslog} {host} {app}[{pid}]: hikari pool starting with spring.datasource.password={S}, maximumPoolSize=10", pw),
    ('{ts} level=debug msg="smtp login" user=mailer smtp_password="{S}" port=587', phrase),
    ("  password: {S}", phrase),
    ('    - db_passwd: "{S}"', pw),
    ('{{"ts":"{ts}","level":"debug","msg":"redis options","addr":"cache.internal:6379","db":0,"password":"{S}"}}', pw),
    ("{ts} DEBUG [celery.worker] broker options {{'hostname': 'mq.internal', 'userid': 'celery', 'password': '{S}', 'port': 5672}}", pw),
    ("{ts} backup: running mysqldump -h db.internal -u backup --password {S} --single-transaction orders", pw),
    ("{ts} WARN ldap bind failed: bindDN=cn=svc,dc=example,dc=org bindPassword={S} (invalid credentials)", pw),
    ("{syslog} {host} systemd[1]: pg-backup.service: Environment: PGHOST=db.internal PGUSER=backup PGPASSWORD={S}", pw),
    ('      passphrase: "{S}"', phrase),
    ("{ts} exec: ssh-keygen -p -f /home/deploy/.ssh/id_ed25519 --new-passphrase={S} -q", pw),
    ("{ts} {lvl} received form POST /login body: username={user}&password={S}&remember=1", pw),
    ("{ts} {lvl} keystore opened: keystore.path=/etc/{app}/keystore.p12 keystore.passphrase={S} type=PKCS12", pw),
    ('{{"level":"warn","msg":"basic auth configured","user":"{user}", "admin_pwd": "{S}", "realm":"metrics"}}', pw),
    ("X-Upstream-Password: {S}", pw),
]

T["secret"] = [
    ("{ts} INFO oauth client registered client_id=web-portal client_secret={S} redirect_uri=https://portal.example.com/callback", lambda r: opaque(r, 40, 40)),
    ("JWT_SECRET={S}", lambda r: rs(r, 64, HEX)),
    ("  webhook_secret: {S}", lambda r: "whsec_" + rs(r, 32, B64)),
    ('{{"level":"debug","component":"github-app","webhook_secret":"{S}","events":["push","pull_request"]}}', lambda r: rs(r, 40, HEX)),
    ("{ts} django settings: SECRET_KEY={S} DEBUG=False ALLOWED_HOSTS=*", lambda r: rs(r, 50, ALNUM + "!$%^*+-_")),
    ("{ts} exec: /usr/bin/oauth2-proxy --provider=oidc --client-id=grafana --client-secret {S} --cookie-name=_oauth2", lambda r: opaque(r, 32, 32)),
    ('{ts} WARN nextauth: NEXTAUTH_SECRET="{S}" looks weak', lambda r: rs(r, 44, B64)),
    ("{ts} {lvl} loaded app config {{'app_id': {n}, 'app_secret': '{S}', 'sandbox': False}}", lambda r: rs(r, 32, HEX)),
    ("  - shared-secret: {S}", lambda r: opaque(r, 20, 30)),
    ("{ts} freeradius: client added name=ap-{n} secret={S} nas_type=other", pw),
    ("X-Hub-Secret: {S}", lambda r: rs(r, 40, HEX)),
    ("{ts} {lvl} mounted config consumer.secret_key={S} consumer.name=partner-api", lambda r: rs(r, 48, B64URL)),
]

T["token"] = [
    ('{host} - - [{clf}] "GET /oauth/callback?state={hex16}&access_token={S}&expires_in=3600 HTTP/1.1" 302 0 "-" "{ua}"', lambda r: rs(r, 43, B64URL)),
    ("{ts} DEBUG refresh_token={S} grant accepted for client_id=mobile-ios", lambda r: opaque(r, 48, 64)),
    ("X-Auth-Token: {S}", lambda r: rs(r, 32, HEX)),
    ('{{"event":"session.created","user_id":{n},"csrf_token":"{S}","ttl":900}}', lambda r: rs(r, 43, B64URL)),
    ('  token: "{S}"', vault_token),
    ("{ts} exec: /usr/local/bin/consul acl policy list --token {S} -http-addr=https://consul.internal:8501", uuid),
    ("{ts} vault-agent: VAULT_TOKEN={S} (renewable=true)", vault_token),
    ("{ts} {lvl} runner config {{'registration_token': '{S}', 'executor': 'docker'}}", lambda r: opaque(r, 20, 20)),
    ("{ts} INFO telegram bot started bot_token={S} polling=true", telegram_token),
    ("{ts} cron: curl -s 'https://api.example.com/v2/export?format=csv&api_token={S}'", lambda r: rs(r, 40, HEX)),
    ("{ts} kubeadm join api.k8s.internal:6443 --token={S} --discovery-token-ca-cert-hash sha256:{hex64}", kubeadm_token),
    ('{{"level":"debug", "msg":"push registration", "device": "ios-{n}", "fcmToken": "{S}"}}', lambda r: rs(r, 22, B64URL) + ":APA91b" + rs(r, 134, B64URL)),
]

T["api-key"] = [
    ("x-api-key: {S}", lambda r: opaque(r, 40, 40)),
    ("{ts} INFO datadog-agent: DD_API_KEY={S} DD_SITE=datadoghq.eu", lambda r: rs(r, 32, HEX)),
    ('{{"level":"warn","msg":"rate limited","apiKey":"{S}","retry_after":30}}', lambda r: opaque(r, 32, 32)),
    ('{host} - - [{clf}] "GET /v1/forecast?lat=52.52&lon=13.41&api_key={S} HTTP/1.1" 200 {bytes} "-" "{ua}"', lambda r: rs(r, 32, HEX)),
    ("  access_key: {S}", lambda r: rs(r, 20, LOWER + DIGITS)),
    ("{ts} backup: s3cmd --access_key={S} sync /var/backups s3://acme-backups/", lambda r: rs(r, 20, LOWER + DIGITS)),
    ("{ts} WARN wallet loaded: signer_private_key={S} chain=sepolia", lambda r: "0x" + rs(r, 64, HEX)),
    ("{ts} {lvl} pusher options {{'channel': 'alerts', 'auth_key': '{S}', 'cluster': 'eu'}}", lambda r: rs(r, 20, HEX)),
    ('{ts} ERROR upstream 401, request headers {{"accept": "application/json", "x-api-key": "{S}"}}', lambda r: "key-" + opaque(r, 40, 40)),
    ("{ts} release: sentry-cli --api-key={S} releases new 2024.05.1", lambda r: rs(r, 64, HEX)),
    ("{ts} {lvl} mapbox tiles: MAPBOX_APIKEY={S} style=streets-v12", lambda r: opaque(r, 60, 60)),
]



def digest(r):
    return ('Digest username="%s", realm="api", nonce="%s", uri="/v1/status", response="%s", qop=auth, '
            'nc=00000001, cnonce="%s"' % (r.choice(USERS), rs(r, 32, HEX), rs(r, 32, HEX), rs(r, 8, HEX)))


def aws4(r):
    return ("AWS4-HMAC-SHA256 Credential=%s/20240501/eu-west-1/s3/aws4_request, "
            "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=%s" % (akid(r, "AKIA"), rs(r, 64, HEX)))


T["authorization-header"] = [
    ("{ts} DEBUG http.client: send header: Authorization: {S}", basic),
    ("authorization: {S}", digest),
    ('{{"method":"GET","url":"/internal/metrics","headers":{{"Authorization":"{S}","Accept":"*/*"}}}}', lambda r: "token " + rs(r, 40, HEX)),
    ("{ts} > Proxy-Authorization: {S}", basic),
    ("{ts} {lvl} request headers {{'User-Agent': 'python-requests/2.31.0', 'Authorization': '{S}', 'Accept': '*/*'}}", lambda r: "Negotiate YII" + rs(r, 180, B64) + "="),
    ("{ts} WARN s3 upstream rejected signature; Authorization: {S}", aws4),
    ("  Authorization: {S}", lambda r: "Bearer " + bearer_opaque(r)),
    ("{ts} request dump: Host=files.internal Authorization: {S}", lambda r: "NTLM TlRMTVNTUAAB" + rs(r, 48, B64) + "=="),
    ('{{"Authorization": "{S}", "x-ms-version": "2021-08-06"}}', lambda r: "SharedKey acmestore:" + rs(r, 43, B64) + "="),
    ("{ts} otel exporter headers: authorization: {S}", lambda r: "Splunk " + uuid(r)),
    ("{ts} elasticsearch client: Authorization: {S}", lambda r: "ApiKey " + b64((rs(r, 20, B64URL) + ":" + rs(r, 22, B64URL)).encode())),
]

T["bearer-token"] = [
    ("{ts} DEBUG upstream call using Bearer {S} for tenant acme", bearer_opaque),
    ("{ts} WARN rejected bearer {S} (expired)", bearer_opaque),
    ("X-Upstream-Auth: Bearer {S}", bearer_opaque),
    ('{{"level":"info","msg":"forwarding","auth":"Bearer {S}","upstream":"billing"}}', bearer_opaque),
    ("{ts} grpc: per-RPC credentials set: bearer {S}", bearer_opaque),
    ("{ts} cached credential type=Bearer {S} ttl=3600", bearer_opaque),
    ("{ts} ERROR auth: introspection failed for Bearer {S}: inactive", bearer_opaque),
    ("{ts} {lvl} ws connect subprotocols=[graphql-ws] auth=Bearer {S} origin=https://app.example.com", bearer_opaque),
]

T["url-userinfo"] = [
    ("{ts} INFO connecting to postgres://{S}@db-primary.internal:5432/orders?sslmode=require", lambda r: "orders:" + pw(r)),
    ("DATABASE_URL=postgresql://{S}@pg.internal/app", lambda r: "app:" + pw(r)),
    ('{{"level":"error","msg":"dial failed","dsn":"mongodb+srv://{S}@cluster0.x1y2z.mongodb.net/prod?retryWrites=true&w=majority"}}', lambda r: "svc-reporting:" + pw(r)),
    ("{ts} celery.worker: Connected to amqp://{S}@rabbitmq.internal:5672//", lambda r: "celery:" + pw(r)),
    ("{ts} redis: connect redis://{S}@cache.internal:6379/0", lambda r: ":" + pw(r)),
    ("{ts} git fetch https://{S}@git.example.com/platform/infra.git", lambda r: "deploy:" + pw(r)),
    ('  url: "https://{S}@nexus.example.com/repository/pypi/simple"', lambda r: "ci-bot:" + pw(r)),
    ("{ts} sqlalchemy.engine: create_engine('mysql+pymysql://{S}@mysql.internal:3306/shop')", lambda r: "shop:" + pw(r)),
    ("{ts} smtp relay smtp://{S}@smtp.example.com:587 unreachable", lambda r: "mailer:" + rs(r, 6, ALNUM) + "@" + rs(r, 8, ALNUM)),
    ("{ts} proxy configured HTTPS_PROXY=http://{S}@proxy.corp.example:3128", lambda r: "jdoe:" + pw(r)),
]

T["private-key"] = [
    ("{ts} ERROR tls: failed to parse key material: {S}", lambda r: pem(r, "RSA PRIVATE KEY", "\\n")),
    ('{{"level":"debug","msg":"loaded signing key","pem":"{S}\\n"}}', lambda r: pem(r, "PRIVATE KEY", "\\n")),
    ('  tls.key: "{S}"', lambda r: pem(r, "EC PRIVATE KEY", "\\n")),
    ("{ts} ssh-agent: adding identity {S}", lambda r: pem(r, "OPENSSH PRIVATE KEY", " ")),
    ("{ts} {lvl} deploy key loaded {{'user': 'deploy', 'ssh_key': '{S}\\n'}}", lambda r: pem(r, "OPENSSH PRIVATE KEY", "\\n")),
    ("{ts} openssl: unable to load {S} (bad decrypt)", lambda r: pem(r, "ENCRYPTED PRIVATE KEY", " ")),
    ('{{"kind":"Secret","type":"kubernetes.io/ssh-auth","stringData":{{"identity":"{S}"}}}}', lambda r: pem(r, "DSA PRIVATE KEY", "\\n")),
]

T["jwt"] = [
    ('{{"level":"warn","msg":"claims rejected","jwt_claims_preview":"{S}"}}', jwt),
    ("{ts} WARN invalid JWT {S}: signature verification failed", jwt),
    ('{host} - - [{clf}] "GET /oidc/logout?id_token_hint={S}&post_logout_redirect_uri=https%3A%2F%2Fapp.example.com HTTP/1.1" 302 0 "-" "{ua}"', jwt),
    ("X-Goog-IAP-JWT-Assertion: {S}", lambda r: jwt(r, "ES256")),
    ("{ts} DEBUG oauth token request assertion={S}&grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", lambda r: jwt(r, "RS256")),
    ("{ts} debug: decoded session cookie jwt={S} user={user}", lambda r: jwt(r, "HS256")),
    ("{ts} ERROR jwt.exceptions.ExpiredSignatureError while decoding {S}", jwt),
    ("{ts} {lvl} service account call {{'sub': 'svc-reporting', 'assertion': '{S}'}}", jwt),
]

T["aws-access-key-id"] = [
    ("AWS_ACCESS_KEY_ID={S}", akid),
    ('{{"eventVersion":"1.08","userIdentity":{{"type":"IAMUser","principalId":"AIDA{a16}","arn":"arn:aws:iam::{acct}:user/ci-deployer","accountId":"{acct}","accessKeyId":"{S}","userName":"ci-deployer"}},"eventSource":"s3.amazonaws.com","eventName":"PutObject","awsRegion":"eu-west-1"}}', akid),
    ("{ts} botocore.exceptions.ClientError: An error occurred (InvalidAccessKeyId) when calling the ListObjectsV2 operation: The AWS Access Key Id you provided does not exist in our records. AccessKeyId: {S}", akid),
    ('{host} - - [{clf}] "GET /reports/q1.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={S}%2F20240501%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20240501T120000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature={hex64} HTTP/1.1" 200 {bytes} "-" "{ua}"', lambda r: akid(r, "ASIA")),
    ("  aws_access_key_id: {S}", akid),
    ("{ts} terraform: provider aws configured with static credentials, key id {S}", lambda r: akid(r, "AKIA")),
    ("{ts} s3 upload failed for key-id {S}: SignatureDoesNotMatch", lambda r: akid(r, "ABIA")),
]

T["aws-secret-access-key"] = [
    ("AWS_SECRET_ACCESS_KEY={S}", aws_secret),
    ("  aws_secret_access_key: {S}", aws_secret),
    ('{{"level":"debug","msg":"loaded credentials","profile":"ci","aws_secret_access_key":"{S}"}}', aws_secret),
    ("{ts} exec: /usr/local/bin/s3sync --aws-secret-access-key {S} --bucket backups", aws_secret),
    ("{ts} loki config: storage_config.aws.secret_access_key={S} storage_config.aws.region=eu-west-1", aws_secret),
    ("{ts} {lvl} boto session kwargs {{'aws_secret_key': '{S}', 'region_name': 'us-east-1'}}", aws_secret),
    ('{ts} env: AWS_SECRET_KEY="{S}"', aws_secret),
]

T["google-api-key"] = [
    ('{host} - - [{clf}] "GET /maps/api/geocode/json?address=Unter+den+Linden+1&key={S} HTTP/1.1" 200 {bytes} "-" "{ua}"', gapi),
    ("GOOGLE_MAPS_KEY={S}", gapi),
    ('{{"level":"error","msg":"youtube quota exceeded","key":"{S}","quota":"10000"}}', gapi),
    ("{ts} WARN firebase init with browser key {S} from /etc/{app}/firebase.json", gapi),
    ("  maps_browser_key: {S}", gapi),
    ("{ts} curl 'https://www.googleapis.com/customsearch/v1?cx=017576662512468239146:omuauf_lfve&key={S}&q=status'", gapi),
]

T["azure-storage-key"] = [
    ("AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={S};EndpointSuffix=core.windows.net", azure88),
    ("{ts} ERROR Azure.RequestFailedException: Server failed to authenticate the request. ConnectionString: DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={S}", azure88),
    ('{{"level":"info","msg":"servicebus connect","conn":"Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={S}"}}', azure44),
    ("{ts} func host: AzureWebJobsStorage=DefaultEndpointsProtocol=https;AccountName=funcstore01;AccountKey={S};EndpointSuffix=core.windows.net", azure88),
    ("{ts} iothub client: HostName=acme-hub.azure-devices.net;DeviceId=sensor-17;SharedAccessKey={S}", azure44),
    ('  connectionString: "Endpoint=sb://events.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={S};EntityPath=telemetry"', azure44),
]

T["github-token"] = [
    ("{ts} INFO gh: logged in to github.com as ci-bot using {S}", lambda r: github(r, "ghp_")),
    ('{{"level":"debug","msg":"installation access minted","installation_id":{n},"value":"{S}","expires_at":"{ts}"}}', lambda r: github(r, "ghs_")),
    ("{ts} WARN oauth: exchanged code for {S} (scope=repo,read:org)", lambda r: github(r, "gho_")),
    ("GH_PAT={S}", lambda r: github(r, "github_pat_")),
    ("{ts} user-to-server credential {S} expires in 8h", lambda r: github(r, "ghu_")),
    ("{ts} refresh with {S} failed: bad_refresh_token", lambda r: github(r, "ghr_")),
    ("  github_pat: {S}", lambda r: github(r, "github_pat_")),
    ("{ts} ci: echo {S} | gh auth login --with-token", lambda r: github(r, "ghp_")),
]

T["gitlab-token"] = [
    ("{ts} created personal access credential {S} for user deploy (scopes: api, read_repository)", lambda r: gitlab(r, "glpat-")),
    ("{ts} WARN runner authentication failed with {S}", lambda r: gitlab(r, "glrt-")),
    ('{{"level":"info","msg":"deploy credential used","credential":"{S}","project":"platform/infra"}}', lambda r: gitlab(r, "gldt-")),
    ("GL_PAT={S}", lambda r: gitlab(r, "glpat-")),
    ('  gitlab_pat: "{S}"', lambda r: gitlab(r, "glpat-")),
    ("{ts} runner registered: id={n} auth={S}", lambda r: gitlab(r, "glrt-")),
]

T["slack-token"] = [
    ("{ts} ERROR slack_sdk.errors.SlackApiError: invalid_auth for {S}", lambda r: slack(r, "xoxb-")),
    ('{{"level":"warn","msg":"slack socket mode reconnect","app_level":"{S}"}}', lambda r: slack(r, "xapp-")),
    ("{ts} slack: posting as user with {S} to channel C0{a16}", lambda r: slack(r, "xoxp-")),
    ("{ts} legacy workspace credential {S} revoked", lambda r: slack(r, "xoxa-")),
    ("{ts} DEBUG slack oauth.v2.access rotated, refresh {S}", lambda r: slack(r, "xoxr-")),
    ("  slack_bot: {S}", lambda r: slack(r, "xoxb-")),
    ("{ts} {lvl} rtm.connect with {S}", lambda r: slack(r, "xoxs-")),
]

T["slack-webhook"] = [
    ("{ts} INFO alertmanager: POST https://hooks.slack.com/services/{S} 200 OK", slack_hook),
    ("SLACK_WEBHOOK_URL=https://hooks.slack.com/services/{S}", slack_hook),
    ('{{"level":"error","msg":"notify failed","url":"https://hooks.slack.com/services/{S}","status":404}}', slack_hook),
    ("  api_url: 'https://hooks.slack.com/services/{S}'", slack_hook),
    ("{ts} curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy done\"}}' https://hooks.slack.com/services/{S}", slack_hook),
    ("{ts} WARN webhook https://hooks.slack.com/services/{S} returned no_service", slack_hook),
]

T["stripe-key"] = [
    ("{ts} Stripe::AuthenticationError: Invalid API Key provided: {S}", lambda r: stripe(r, "sk_live_")),
    ("STRIPE_SK={S}", lambda r: stripe(r, "sk_test_")),
    ('{{"level":"debug","msg":"stripe client init","restricted":"{S}"}}', lambda r: stripe(r, "rk_live_")),
    ("{ts} billing worker using {S} in test mode", lambda r: stripe(r, "rk_test_")),
    ("  stripe_sk: {S}", lambda r: stripe(r, "sk_live_")),
    ("{ts} curl https://api.stripe.com/v1/charges -u {S}: -d amount=2000", lambda r: stripe(r, "sk_test_")),
]

T["sendgrid-key"] = [
    ("{ts} ERROR python_http_client.exceptions.UnauthorizedError: HTTP Error 401 with {S}", sendgrid),
    ("{ts} postfix relay sasl: user=apikey pass {S}", sendgrid),
    ('{{"level":"info","msg":"mailer configured","provider":"sendgrid","credential":"{S}"}}', sendgrid),
    ("SENDGRID={S}", sendgrid),
    ("  sendgrid: {S}", sendgrid),
    ("{ts} WARN mail: provider rejected key {S} (401 Unauthorized)", sendgrid),
]

T["twilio-key"] = [
    ("{ts} twilio: created API key sid={S} friendly_name=ci", twilio),
    ('{{"account_sid":"AC{hex32}","sid":"{S}","friendly_name":"ci","date_created":"{ts}"}}', twilio),
    ("{ts} WARN twilio request signed with {S}", twilio),
    ("TWILIO_KEY_SID={S}", twilio),
    ("  twilio_sid: {S}", twilio),
    ("{ts} exec: twilio profiles:add ci --api-key-sid {S} --region ie1", twilio),
]

T["npm-token"] = [
    ("{ts} npm notice publishing with {S}", npm),
    ('{{"level":"info","msg":"registry credential rotated","new":"{S}"}}', npm),
    ("NPM_PUBLISH={S}", npm),
    ("{ts} yarn: using npm automation credential {S} for the acme scope", npm),
    ('  npm_automation: "{S}"', npm),
    ("{ts} npm ERR! 403 Forbidden - PUT https://registry.npmjs.org/acme-ui - credential {S} lacks publish rights", npm),
]

T["pypi-token"] = [
    ("{ts} release: twine upload dist/* -u __token__ -p {S}", pypi),
    ("{ts} ERROR 403 Invalid or non-existent authentication information for {S}", pypi),
    ('{{"level":"debug","msg":"publishing","index":"pypi","credential":"{S}"}}', pypi),
    ("PYPI_UPLOAD={S}", pypi),
    ("  pypi_api: {S}", pypi),
    ("{ts} exec: poetry config pypi-token.pypi {S}", pypi),
]

T["card-number"] = [
    ("{ts} WARN payment declined card={S} exp=12/27 reason=insufficient_funds", card),
    ('{{"event":"checkout.failed","order_id":"{order}","pan":"{S}","amount":4999,"currency":"EUR"}}', card),
    ("{ts} ERROR PaymentError: card {S} rejected by issuer", card),
    ("  card_number: {S}", card),
    ("{ts} fraud-check: bin lookup for {S} -> score=0.82", card),
    ("{ts} {lvl} legacy POS dump track2 ;{S}=2901101000000000000?", card_digits),
    ("{ts} {lvl} refund requested for order {order} on card {S}, amount 19.99", card),
    ("{ts} {lvl} tokenization skipped: number={S} brand=unknown", card),
]

T["email"] = [
    ("{ts} INFO password reset email sent to {S}", email),
    ("{syslog} mail postfix/smtp[{pid}]: 4F1A2B3C4D: to=<{S}>, relay=none, delay=0.12, delays=0.01/0/0.1/0, dsn=5.4.4, status=bounced (Host or domain name not found)", email),
    ('{{"event":"signup","email":"{S}","plan":"pro"}}', email),
    ("{ts} git: Author: Alice Example <{S}>", email),
    ("{ts} WARN duplicate account for {S}; skipping", email),
    ("  owner: {S}", email),
]

T["ipv4"] = [
    ("{syslog} {host} sshd[{pid}]: Connection closed by authenticating user root {S} port {port} [preauth]", ipv4),
    ('{S} - - [{clf}] "GET /healthz HTTP/1.1" 200 2 "-" "kube-probe/1.29"', ipv4),
    ('{{"level":"info","msg":"request","client_ip":"{S}","status":200}}', ipv4),
    ("{ts} WARN rate limit exceeded for {S}:{port}", ipv4),
    ("{syslog} {host} kernel: [UFW BLOCK] IN=eth0 OUT= SRC={S} LEN=60 TOS=0x00 PREC=0x00 TTL=52 ID=0 DF PROTO=TCP SPT={port} DPT=22 WINDOW=64240 SYN URGP=0", ipv4),
    ("  bind_address: {S}", ipv4),
]

T["ipv6"] = [
    ("{ts} listening on [{S}]:8443", lambda r: ipv6(r, 0)),
    ("{syslog} {host} sshd[{pid}]: Accepted publickey for deploy from {S} port {port} ssh2: ED25519 SHA256:{hex16}", lambda r: ipv6(r, 1)),
    ('{{"remote":"{S}","proto":"h2","status":204}}', lambda r: ipv6(r, 2)),
    ("{ts} dhcpv6: lease {S} assigned to eth0", lambda r: ipv6(r, 3)),
    ("{ts} ping6 {S}: icmp_seq=1 ttl=64 time=0.42 ms", lambda r: ipv6(r)),
    ('  address: "{S}"', lambda r: ipv6(r)),
    ("{ts} {lvl} loopback check ok on {S}", lambda r: "::1"),
]

assert set(T) == set(RULES), set(RULES) ^ set(T)


def render(rng, template, secret_fn):
    vals = F(rng).values()
    secret = secret_fn(rng)
    pre, post = template.split("{S}")
    pre = pre.format(**vals)
    post = post.format(**vals)
    return pre, secret, post


def case(rng, rule, index=None):
    """(before, secret, after) for `rule`, from template `index` or a random one."""
    templates = T[rule]
    template, fn = templates[rng.randrange(len(templates))] if index is None else templates[index]
    return render(rng, template, fn)


# card-number: one case per issuer range and length, on the templates in turn; the track2
# template (index 5) takes the digits as one run, the others a random grouping.
CARD_CASES = ["4111111111111111", "4222222222222", ("4", 19), "5555555555554444", ("53", 16), "2223003122003222",
              ("2720", 16), "378282246310005", ("34", 15), "6011111111111117", ("65", 16), ("644", 16), ("649", 19),
              "3530111333300000", ("3589", 16), "30569309025904", ("36", 14), ("38", 14), ("305", 14),
              "6200000000000005", ("62", 19)]


def card_cases(rng):
    for n, spec in enumerate(CARD_CASES):
        if isinstance(spec, tuple):
            prefix, length = spec
            partial = prefix + rs(rng, length - len(prefix) - 1, DIGITS)
            digits = partial + luhn_digit(partial)
        else:
            digits = spec
        index = n % len(T["card-number"])
        template, fn = T["card-number"][index]
        yield render(rng, template, lambda r: digits if fn is card_digits else card_format(r, digits))


def main():
    rng = random.Random(SEED)
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    for rule in RULES:
        cases = card_cases(rng) if rule == "card-number" else (case(rng, rule, i) for i in range(len(T[rule])))
        for pre, secret, post in cases:
            line = pre + OPEN + secret + CLOSE + post
            assert "\t" not in line and "\n" not in line
            out.append("%s\t%s" % (rule, line))
    with open(os.path.join(here, "positives.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    print("positives.tsv: %d cases" % len(out), file=sys.stderr)


if __name__ == "__main__":
    main()
