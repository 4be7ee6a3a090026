"""curl command lines -> requests: shell words, options, bodies, auth, settings, notes."""

from __future__ import annotations

import base64
import contextlib
from pathlib import Path

import pytest

from pigeon.importers import ImportFailed, run_import, write_import
from pigeon.importers.curl import SEPARATOR, parse_curl, shell_words
from pigeon.model import Request
from render_support import render_alone, render_written


def one(
    command: str, base: Path | None = None, allow_outside: bool = False
) -> tuple[Request, list[str]]:
    result = parse_curl(command, base=base, allow_outside=allow_outside)
    assert len(result.requests) == 1
    folder, req = result.requests[0]
    assert folder == ""
    return req, result.notes


# -- shell words ------------------------------------------------------------------------------


def test_shell_words_quotes_continuations_and_ansi_c() -> None:
    text = "curl 'a b' \"c \\\"d\\\"\" e\\ f \\\n  $'x\\ty\\n\\x41\\u00e9' \"\" ''"
    assert shell_words(text).words == ["curl", "a b", 'c "d"', "e f", "x\ty\nA\u00e9", "", ""]


def test_shell_words_separators_and_comments() -> None:
    words = shell_words("curl a # comment\ncurl b && echo done | jq .; curl c").words
    assert words == [
        "curl", "a", SEPARATOR, "curl", "b", SEPARATOR, "echo", "done", SEPARATOR, "jq", ".",
        SEPARATOR, "curl", "c",
    ]  # fmt: skip


def test_shell_variables_become_env_placeholders() -> None:
    req, notes = one(
        'curl -H "Authorization: Bearer $TOKEN" "https://x.test/${TENANT}/a" -H \'X: $LIT\''
    )
    assert req.auth is not None and req.auth.token == "{{$env.TOKEN}}"
    assert req.url == "https://x.test/{{$env.TENANT}}/a"
    assert req.headers[0].value == "$LIT"  # single quotes keep it literal
    assert any("TOKEN" in n and ".env" in n for n in notes)


def test_unterminated_quote_is_a_clear_error() -> None:
    with pytest.raises(ImportFailed, match="unterminated single quote"):
        parse_curl("curl 'https://x.test")


def test_no_curl_command() -> None:
    with pytest.raises(ImportFailed, match="no curl command"):
        parse_curl("wget https://x.test")


# -- options ------------------------------------------------------------------------------------


def test_method_url_query_and_headers() -> None:
    req, _ = one(
        "curl -X PATCH 'https://api.test/v1/items?q=caf%C3%A9+au+lait&tag=a&tag=b' -H 'Accept: application/json' -H 'X-Trace:  1'"
    )
    assert req.method == "PATCH"
    assert req.url == "https://api.test/v1/items"
    assert [(q.name, q.value) for q in req.query] == [
        ("q", "café au lait"),
        ("tag", "a"),
        ("tag", "b"),
    ]
    assert [(h.name, h.value) for h in req.headers] == [
        ("Accept", "application/json"),
        ("X-Trace", "1"),
    ]
    assert req.settings.follow_redirects is False  # curl without -L does not follow


def test_query_that_is_not_pairs_stays_in_url() -> None:
    req, _ = one("curl 'https://x.test/a?flag&b=1'")
    assert req.url == "https://x.test/a?flag&b=1" and req.query == []


def test_clustered_short_options_and_attached_values() -> None:
    req, notes = one("curl -sSLkXPUT -HContent-Type:text/plain -d'plain text' x.test/p")
    assert req.method == "PUT"
    assert req.url == "http://x.test/p"  # curl's default scheme
    assert req.settings.follow_redirects and not req.settings.verify_tls
    assert req.body.type == "text" and req.body.content == "plain text"
    assert any("-s, -S" in n for n in notes)


def test_implied_post_head_and_get() -> None:
    assert one("curl -d a=1 https://x.test")[0].method == "POST"
    assert one("curl -I https://x.test")[0].method == "HEAD"
    req, _ = one("curl -G -d q=x -d 'page=2' --data-urlencode 'name=a b&c' https://x.test/s")
    assert req.method == "GET" and req.body.type == "none"
    assert [(q.name, q.value) for q in req.query] == [("q", "x"), ("page", "2"), ("name", "a b&c")]


def test_data_joined_and_form_fields() -> None:
    req, _ = one("curl -d 'a=1' --data 'b=two%20words' --data-ascii c=3 https://x.test")
    assert req.body.type == "form"
    assert [(f.name, f.value) for f in req.body.fields] == [
        ("a", "1"),
        ("b", "two words"),
        ("c", "3"),
    ]
    assert req.headers == []


def test_json_content_type_gives_json_body() -> None:
    req, _ = one(
        """curl https://x.test -H 'content-type: application/json' --data-raw '{"a": [1, 2]}'"""
    )
    assert req.body.type == "json" and req.body.content == '{"a": [1, 2]}'
    assert req.headers == []  # Pigeon adds application/json for a json body
    req, _ = one(
        """curl https://x.test -H 'Content-Type: application/vnd.api+json' -d '{"data": []}'"""
    )
    assert req.body.type == "json"
    assert [(h.name, h.value) for h in req.headers] == [
        ("Content-Type", "application/vnd.api+json")
    ]


def test_json_option() -> None:
    req, _ = one("""curl --json '{"n": 1}' https://x.test""")
    assert req.method == "POST" and req.body.type == "json" and req.body.content == '{"n": 1}'
    assert [(h.name, h.value) for h in req.headers] == [("Accept", "application/json")]


def test_json_without_content_type_is_json_sent_as_curl_sends_it(tmp_path: Path) -> None:
    req, notes = one("""curl -d '{"raw": true}' https://x.test""")
    assert req.body.type == "json" and req.body.content == '{"raw": true}'
    assert [(h.name, h.value) for h in req.headers] == [
        ("Content-Type", "application/x-www-form-urlencoded")
    ]
    assert any("is JSON but curl sends it as" in n for n in notes)
    sent = render_alone(req, tmp_path)
    assert sent.body == b'{"raw": true}'
    assert sent.headers == [("Content-Type", "application/x-www-form-urlencoded")]
    req, _ = one("curl -d '42' https://x.test")  # a bare number is not a JSON document
    assert req.body.type == "text"


def test_data_files(tmp_path: Path) -> None:
    (tmp_path / "body.json").write_text('{"from": "file"}\n', encoding="utf-8")
    (tmp_path / "lines.txt").write_text("a=1\nb=2\n", encoding="utf-8")
    req, _ = one(
        "curl -H 'Content-Type: application/json' --data-binary @body.json https://x.test", tmp_path
    )
    # The only data, from a file: the file as it is, named, never read here.
    assert (req.body.type, req.body.path) == ("file", str(tmp_path / "body.json"))
    assert req.body.content_type == "application/json" and not req.headers
    req, _ = one("curl -d @lines.txt https://x.test", tmp_path)  # -d strips newlines
    assert [(f.name, f.value) for f in req.body.fields] == [("a", "1b=2")]
    req, notes = one("curl -d @missing.json https://x.test", tmp_path)
    assert any("@missing.json" in n and "not carried over" in n for n in notes)
    req, _ = one("curl --data-raw @literal https://x.test", tmp_path)
    assert req.body.content == "@literal"


def test_multipart_form(tmp_path: Path) -> None:
    (tmp_path / "me.png").write_bytes(b"png")
    req, notes = one(
        "curl -F name=Ada -F 'note=hi;type=text/plain' -F 'avatar=@./me.png;type=image/png' "
        "-H 'Content-Type: multipart/form-data; boundary=xyz' https://x.test/up",
        tmp_path,
    )
    assert req.method == "POST" and req.body.type == "multipart"
    got = [(f.name, f.value, f.kind, f.content_type) for f in req.body.fields]
    assert got == [("name", "Ada", "text", ""), ("note", "hi", "text", "text/plain"),
                   ("avatar", str(tmp_path / "me.png"), "file", "image/png")]  # fmt: skip
    assert req.headers == []  # Pigeon writes its own boundary
    assert notes == []


def test_auth_options_and_headers() -> None:
    req, _ = one("curl -u 'ada:p@ss:word' https://x.test")
    assert req.auth is not None and (req.auth.type, req.auth.username, req.auth.password) == (
        "basic",
        "ada",
        "p@ss:word",
    )
    token = base64.b64encode(b"bob:pw").decode()
    req, _ = one(f"curl -H 'Authorization: Basic {token}' https://x.test")
    assert req.auth is not None and (req.auth.username, req.auth.password) == ("bob", "pw")
    assert req.headers == []
    req, _ = one("curl -H 'Authorization: Bearer abc.def' https://x.test")
    assert req.auth is not None and req.auth.type == "bearer" and req.auth.token == "abc.def"
    req, _ = one("curl -H 'Authorization: Digest abc' https://x.test")
    assert req.auth is None and req.headers[0].value == "Digest abc"
    req, notes = one("curl -u ada https://x.test")
    assert req.auth is not None and req.auth.password == "" and any("prompt" in n for n in notes)


def test_agent_referer_cookie_timeouts() -> None:
    req, notes = one(
        "curl -A 'Agent/1' -e 'https://ref.test/;auto' -b 'a=1' -b 'b=2' -m 2.5 --connect-timeout 3 https://x.test"
    )
    assert [(h.name, h.value) for h in req.headers] == [
        ("User-Agent", "Agent/1"), ("Referer", "https://ref.test/"), ("Cookie", "a=1; b=2"),
    ]  # fmt: skip
    assert req.settings.timeout == 2.5
    assert req.settings.extra["connect_timeout"] == 3.0
    assert any("--connect-timeout" in n for n in notes)
    req, _ = one("curl -A 'Agent/1' -H 'User-Agent: Mine' https://x.test")
    assert [(h.name, h.value) for h in req.headers] == [("User-Agent", "Mine")]


def test_unknown_and_unsupported_options_are_reported_one_line_each() -> None:
    _, notes = one(
        "curl --frobnicate -x http://proxy:3128 --digest -Q x https://x.test --compressed"
    )
    assert "curl option --frobnicate is not known to Pigeon; ignored" in notes
    assert any(n.startswith("curl option -x http://proxy:3128") for n in notes)
    assert any(n.startswith("curl option --digest") for n in notes)
    assert not any("compressed" in n for n in notes)


def test_bad_timeout() -> None:
    with pytest.raises(ImportFailed, match="--max-time"):
        parse_curl("curl --max-time soon https://x.test")


def test_several_commands_and_urls() -> None:
    result = parse_curl(
        "curl https://a.test/1 https://a.test/2\ncurl -X DELETE https://b.test/x | jq ."
    )
    assert [(r.method, r.url) for _, r in result.requests] == [
        ("GET", "https://a.test/1"), ("GET", "https://a.test/2"), ("DELETE", "https://b.test/x"),
    ]  # fmt: skip


def test_browser_copy_as_curl() -> None:
    command = r"""curl 'https://app.test/api/graphql' \
  -H 'accept: */*' \
  -H 'accept-language: en-GB,en;q=0.9' \
  -H 'content-type: application/json' \
  -H 'cookie: sid=abc; theme=dark' \
  --data-raw $'{"query":"{ me { name } }","variables":{"x":"it\'s"}}' \
  --compressed"""
    req, notes = one(command)
    assert req.method == "POST" and req.body.type == "json"
    assert req.body.content == '{"query":"{ me { name } }","variables":{"x":"it\'s"}}'
    assert [h.name for h in req.headers] == ["accept", "accept-language", "cookie"]
    assert notes == []


# -- rendering and writing ------------------------------------------------------------------


def test_rendered_request_matches_curl(tmp_path: Path) -> None:
    req, _ = one(
        "curl -X POST 'https://x.test/u?page=2' -u ada:pw -H 'X-A: 1' "
        "-H 'Content-Type: application/json' -d '{\"n\": 1}' -m 5"
    )
    r = render_alone(req, tmp_path)
    assert r.method == "POST" and r.url == "https://x.test/u?page=2"
    assert r.headers == [
        ("X-A", "1"),
        ("Authorization", "Basic " + base64.b64encode(b"ada:pw").decode()),
        ("Content-Type", "application/json"),
    ]
    assert r.body == b'{"n": 1}' and r.settings.timeout == 5


def test_run_import_writes_files_and_never_overwrites(tmp_path: Path) -> None:
    into = tmp_path / "col"
    written, notes = run_import("curl", "curl -X DELETE https://x.test/users/7", into)
    assert [p.name for p in written] == ["collection.toml", "delete-users-7.toml"]
    before = (into / "delete-users-7.toml").read_text()
    written2, _ = run_import("curl", "curl -X DELETE https://x.test/users/7 -H 'X: 2'", into)
    assert [p.name for p in written2] == ["delete-users-7-2.toml"]
    assert (into / "delete-users-7.toml").read_text() == before
    r = render_written(into, "delete-users-7-2")
    assert r.method == "DELETE" and r.headers == [("X", "2")]


def test_run_import_from_file_and_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    src = tmp_path / "cmd.sh"
    src.write_text("curl https://x.test/from-file\n", encoding="utf-8")
    written, _ = run_import("curl", str(src), tmp_path / "a")
    assert written[-1].name == "get-from-file.toml"
    monkeypatch.setattr("sys.stdin", io.StringIO("curl https://x.test/from-stdin"))
    written, _ = run_import("curl", "-", tmp_path / "b")
    assert written[-1].name == "get-from-stdin.toml"


def test_write_import_into_existing_collection_keeps_its_values(tmp_path: Path) -> None:
    from pigeon.importers import ImportResult
    from pigeon.model import Auth
    from pigeon.store import load_collection

    into = tmp_path / "col"
    into.mkdir()
    (into / "collection.toml").write_text('name = "Mine"\n[variables]\nbase = "http://mine"\n')
    result = ImportResult(
        variables={"base": "http://theirs", "extra": 1}, auth=Auth(type="bearer", token="t")
    )
    result.requests.append(("Users/Admin", Request(name="List", url="{{base}}/u")))
    written = write_import(result, into)
    text = (into / "collection.toml").read_text()
    assert text.startswith('name = "Mine"\n[variables]\nbase = "http://mine"\n')  # kept
    col = load_collection(into)
    assert col.variables == {"base": "http://mine", "extra": 1}  # what it lacked, added
    assert col.auth is not None and col.auth.token == "t"
    assert any(n.startswith("variable base not written") for n in result.notes)
    assert "collection.toml exists: variable extra and auth (bearer) added to it" in (result.notes)
    assert (into / "users" / "admin" / "list.toml") in written
    r = render_written(into, "users/admin/list")
    assert r.url == "http://mine/u"
    assert r.headers == [("Authorization", "Bearer t")]  # the collection's auth

    # An auth the collection has already is never replaced: the requests carry the import's.
    other = ImportResult(auth=Auth(type="basic", username="u", password="p"))
    other.requests.append(("", Request(name="Other", url="{{base}}/o")))
    write_import(other, into)
    assert load_collection(into).auth.token == "t"
    assert any(
        n.startswith("auth (basic) not written: collection.toml exists") for n in other.notes
    )
    assert render_written(into, "other").header("authorization").startswith("Basic ")


def test_unreadable_data_file_still_posts_and_upload_puts(tmp_path: Path) -> None:
    req, notes = one("curl -d @missing.txt https://x.test", tmp_path)
    assert req.method == "POST" and req.body.type == "none"
    req, notes = one("curl -T ./file.bin https://x.test/up", tmp_path)
    assert req.method == "PUT"
    assert any("-T ./file.bin" in n for n in notes)


def test_random_command_lines_parse_or_fail_clearly() -> None:
    import random

    from pigeon.importers import sanitize

    words = [
        "curl", "-X", "POST", "-H", "'A: b'", "-d", "'a=1'", "--json", "'{}'", "-F", "'f=@x'",
        "-u", "u:p", "https://x.test/?a=1", "$'x\\ty'", '"$T"', "\\\n", "-G", "-I", "-sSL",
        "--url", "-m", "5", "-b", "c=1", "-e", "-A", "'", '"', "|", "&&", ";", "#c", "-T",
        "--data-urlencode", "@f", "-XPUT", "-H'X;'", "--", "-", "--max-time", "x", "-k",
        "<<EOF", "\nEOF\n", "<<-'E'", "<<<", ">", "2>&1", "<", "@-", "\n", "--next", "^",
        '^"', "^\n", "%X%", "`\n",
    ]  # fmt: skip
    rnd = random.Random(3)
    for _ in range(3000):
        command = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 12)))
        with contextlib.suppress(ImportFailed):
            sanitize(parse_curl(command))


HISTORY = Path(__file__).parents[1] / "data" / "curl"


def test_bash_history_with_stray_quotes_repeats_and_bad_commands() -> None:
    result = parse_curl((HISTORY / "bash_history").read_text())
    got = [(r.method, r.url, [q.name for q in r.query]) for _, r in result.requests]
    assert got == [
        ("GET", "https://shop.example.test/api/health", []),
        ("POST", "https://shop.example.test/api/login", []),
        ("GET", "https://shop.example.test/api/orders", ["page"]),
    ]
    login = result.requests[1][1]
    assert login.body.type == "json"
    assert login.body.content == '{"user": "ada", "password": "{{$env.SHOP_PASSWORD}}"}'
    assert result.requests[2][1].auth is not None
    assert any("repeated command imported once" in n for n in result.notes)
    assert any("--max-time needs a value" in n and "skipped" in n for n in result.notes)


def test_zsh_history(tmp_path: Path) -> None:
    written, notes = run_import("curl", str(HISTORY / "zsh_history"), tmp_path / "col")
    assert [p.name for p in written] == [
        "collection.toml",
        "get-api-customers-7.toml",
        "delete-api-customers-7.toml",
    ]
    r = render_written(tmp_path / "col", "delete-api-customers-7")
    assert (
        r.method == "DELETE"
        and r.header("authorization") == "Basic " + base64.b64encode(b"admin:pw").decode()
    )


# -- Windows and PowerShell command lines ------------------------------------------------------


def test_chrome_copy_as_curl_cmd() -> None:
    req, notes = one((HISTORY / "chrome_cmd.txt").read_text())
    assert req.method == "POST"
    assert req.url == "https://app.example.test/api/graphql"
    assert [(q.name, q.value) for q in req.query] == [("op", "Me"), ("v", "2"), ("q", "a b")]
    assert [(h.name, h.value) for h in req.headers] == [
        ("accept", "*/*"),
        ("accept-language", "en-GB,en;q=0.9"),
        ("cookie", "sid=abc; theme=dark"),
        ("user-agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"),
    ]
    assert req.body.type == "json"
    assert req.body.content == ('{"query":"{ me { name } }","variables":{"x":"it\'s 100%"}}')
    assert notes == []


def test_cmd_caret_rules() -> None:
    # A caret at the end of a line joins the next one; ^ and a newline keep a newline.
    req, _ = one('curl ^"https://x.test/a^" -H ^"X-A: 1^" ^\n  --data-raw ^"one^\n\ntwo^"')
    assert req.url == "https://x.test/a" and req.body.content == "one\ntwo"
    assert [(h.name, h.value) for h in req.headers][0] == ("X-A", "1")
    # Inside plain quotes a caret is literal; outside, ^& is an ampersand, not a new command.
    result = parse_curl('curl "https://x.test/b?c=^1" https://x.test/c?a=1^&b=2 ^\n -X PUT')
    got = [(r.method, r.url, [(q.name, q.value) for q in r.query]) for _, r in result.requests]
    assert got == [
        ("PUT", "https://x.test/b", [("c", "^1")]),
        ("PUT", "https://x.test/c", [("a", "1"), ("b", "2")]),
    ]
    # A POSIX command keeps ^" inside single quotes as it is.
    req, _ = one("curl https://x.test -d 'a ^\"b' -H 'X: ^&'")
    assert req.body.content == 'a ^"b' and req.headers[0].value == "^&"


def test_cmd_quotes_backslashes_and_variables() -> None:
    from pigeon.importers.curl import cmd_words

    # The C runtime's rules: \" is a quote, "" inside quotes is one, other backslashes stay.
    words = cmd_words(r'curl -d "{\"a\": \"b\\\"}" "x""y" C:\dir\f.txt "d\\" ^"^"').words
    assert words[:-1] == ["curl", "-d", '{"a": "b\\"}', 'x"y', r"C:\dir\f.txt", "d\\", ""]
    req, notes = one(
        'curl "https://x.test/caf%C3%A9?k=%API_KEY%" -H "Authorization: Bearer %TOKEN%" ^\n'
        " -X DELETE 2>nul"
    )
    assert req.method == "DELETE" and req.url == "https://x.test/caf%C3%A9"
    assert [(q.name, q.value) for q in req.query] == [("k", "{{$env.API_KEY}}")]
    assert req.auth is not None and req.auth.token == "{{$env.TOKEN}}"
    assert any(n.startswith("%TOKEN% became {{$env.TOKEN}}") for n in notes)


def test_powershell_is_refused_by_name() -> None:
    for command in (
        'curl.exe "https://x.test/a" `\n  -H "Accept: */*"',
        'curl.exe -H "Authorization: Bearer $env:TOKEN" https://x.test/a',
    ):
        with pytest.raises(ImportFailed, match="PowerShell syntax.*copy the command as cURL"):
            parse_curl(command)


# -- standard input: heredocs, here-strings, < FILE --------------------------------------------


def test_heredoc_is_what_at_dash_reads() -> None:
    command = (
        "curl --data-binary @- https://x.test/a -H 'Content-Type: application/json' <<EOF\n"
        '{"user": "$USER", "cost": "\\$5"}\n'
        "EOF\n"
    )
    result = parse_curl(command)
    assert [(r.method, r.url) for _, r in result.requests] == [("POST", "https://x.test/a")]
    req = result.requests[0][1]
    assert req.body.type == "json"
    assert req.body.content == '{"user": "{{$env.USER}}", "cost": "$5"}\n'
    assert any("$USER became" in n for n in result.notes)
    assert not any("standard input" in n for n in result.notes)
    # A quoted delimiter: no expansion. <<- strips leading tabs, from the end line too.
    req, _ = one("curl -d @- https://x.test/b <<-'END'\n\ta=$HOME\n\tEND\n")
    assert [(f.name, f.value) for f in req.body.fields] == [("a", "$HOME")]


def test_here_string_stdin_file_and_redirections(tmp_path: Path) -> None:
    req, notes = one("curl --data-binary @- https://x.test/a <<< 'plain text' > out.txt 2>&1")
    assert req.body.content == "plain text\n"  # a here-string ends with a newline
    assert "curl output options ignored (they do not change the request): > out.txt" in notes
    (tmp_path / "body.txt").write_text("from a file", encoding="utf-8")
    for command in (
        "curl --data-binary @- https://x.test/a < body.txt",
        "<body.txt curl --data-binary @- https://x.test/a",
    ):
        req, notes = one(command, tmp_path)
        assert req.body.content == "from a file" and notes == [], command
    req, notes = one("curl -d @- https://x.test/a < gone.txt", tmp_path)
    assert any("< gone.txt" in n and "cannot read" in n for n in notes)
    req, notes = one("echo a=1 | curl -d @- https://x.test/a")  # a pipe: not known here
    assert any("@- reads standard input" in n for n in notes)


def test_script_with_heredocs_gives_only_its_curl_requests() -> None:
    result = parse_curl((HISTORY / "script.sh").read_text())
    got = [(r.method, r.url) for _, r in result.requests]
    assert got == [
        ("POST", "https://shop.example.test/api/orders"),
        ("GET", "https://shop.example.test/api/orders"),
    ]
    assert result.requests[0][1].body.content == '{"item": "tea", "by": "{{$env.SHOP_USER}}"}\n'
    assert "curl output options ignored (they do not change the request): -s, > orders.json" in (
        result.notes
    )


def test_heredoc_without_end_line_is_noted() -> None:
    req, notes = one("curl --data-binary @- https://x.test/a <<EOF\nhalf")
    assert req.body.content == "half\n"
    assert any("heredoc has no end line" in n for n in notes)


# -- files named on the command line ---------------------------------------------------------


def test_relative_files_are_resolved_where_the_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "rel.txt").write_text("r", encoding="utf-8")
    (tmp_path / "d.txt").write_text("x=1", encoding="utf-8")
    command = "curl -F f=@./sub/rel.txt -F g=@sub/rel.txt -F 'h=@~/h.txt' -F i=@/abs/i.txt x.test"
    req, notes = one(command, tmp_path)
    assert [(f.value, f.enabled) for f in req.body.fields] == [
        (str(tmp_path / "sub" / "rel.txt"), True),
        (str(tmp_path / "sub" / "rel.txt"), True),
        ("~/h.txt", False),  # outside the directory: kept as written, switched off
        ("/abs/i.txt", False),
    ]
    assert (
        f"file {Path('/abs/i.txt')} is outside {tmp_path}; not read (use --allow-outside)" in notes
    )
    # With allow_outside: the absolute path, noted when there is no file there.
    req, notes = one(command, tmp_path, allow_outside=True)
    assert req.body.fields[3].value == "/abs/i.txt" and req.body.fields[3].enabled
    assert any(f"no file at {Path('/abs/i.txt')}" in n for n in notes)
    # Without a base: the current directory, as when the command is pasted into the app.
    monkeypatch.chdir(tmp_path)
    req, _ = one("curl -F f=@sub/rel.txt https://x.test")
    assert req.body.fields[0].value == str(tmp_path / "sub" / "rel.txt")
    req, _ = one("curl -d @d.txt https://x.test")
    assert [(f.name, f.value) for f in req.body.fields] == [("x", "1")]


def test_written_file_field_still_sends_the_file(tmp_path: Path) -> None:
    from pigeon.importers import write_import

    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "note.txt").write_text("the note", encoding="utf-8")
    result = parse_curl("curl -F note=@./note.txt https://x.test/up", base=tmp_path / "work")
    write_import(result, tmp_path / "col")
    r = render_written(tmp_path / "col", "post-up")
    assert b'filename="note.txt"' in (r.body or b"") and b"the note" in (r.body or b"")


# -- options that do nothing in Pigeon --------------------------------------------------------


def test_path_as_is_globs_max_redirs_and_next() -> None:
    assert one("curl -L --max-redirs 20 https://x.test")[1] == []
    assert (
        "--max-redirs 50: not carried over; Pigeon follows up to 20"
        in (one("curl -L --max-redirs 50 https://x.test")[1])
    )
    _, notes = one("curl --path-as-is https://x.test/a/../b")
    assert any("--path-as-is" in n and "/a/../b is not sent as written" in n for n in notes)
    _, notes = one("curl --path-as-is https://x.test/a/b")
    assert any("--path-as-is: not carried over" in n for n in notes)
    _, notes = one("curl 'https://x.test/{a,b}/[1-3]'")
    assert any("glob" in n for n in notes)
    for command in (
        "curl -g 'https://x.test/{a,b}'",
        "curl 'http://[::1]:8080/a'",
        'curl "https://x.test/$ID"',
    ):
        assert not any("glob" in n for n in one(command)[1]), command
    result = parse_curl("curl https://a.test/1 -H 'A: 1' --next -d x=1 https://a.test/2")
    got = [(r.method, r.url, [h.name for h in r.headers]) for _, r in result.requests]
    assert got == [("GET", "https://a.test/1", ["A"]), ("POST", "https://a.test/2", [])]
    assert result.notes == []
