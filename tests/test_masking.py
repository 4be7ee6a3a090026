"""One list of secret names, one rule for body fields, one mask string (DESIGN §7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pigeon import history, masking
from pigeon.importers import posting
from pigeon.masking import MASK, Masker, mask_url, mask_value, secret_field, secret_name
from pigeon.tui import format as tui_format
from pigeon.tui.widgets.variables import variables_pane


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "Proxy-Authorization",
        "Cookie",
        "Set-Cookie",
        "X-Api-Key",
        "api_key",
        "apikey",
        "key",
        "Idempotency-Key",
        "X-Auth-Token",
        "client_secret",
        "password",
        "DB_PASSWD",
        "pwd",
        "session",
        "PRIVATE_KEY",
        "aws_credentials",
        "signature",
        "sig",
        "PROD_API_TOKEN",
    ],
)
def test_names_that_hold_secrets(name: str) -> None:
    assert secret_name(name)


@pytest.mark.parametrize(
    "name", ["Accept", "Content-Type", "base_url", "monkey", "keyboard", "user", "page", "sigma"]
)
def test_names_that_do_not(name: str) -> None:
    assert not secret_name(name)


def test_every_part_of_pigeon_uses_the_one_rule_and_the_one_mask() -> None:
    assert history.MASK is MASK and variables_pane.MASK is MASK
    assert tui_format.is_sensitive_header is secret_name
    assert variables_pane.looks_secret is secret_name
    assert posting.secret_name is secret_name
    assert Masker().header("X-Api-Key", "abc123") == MASK
    assert mask_value("X-Api-Key", "abc123") == MASK


def test_a_scheme_word_stays_readable() -> None:
    assert mask_value("Authorization", "Bearer abc.def") == f"Bearer {MASK}"
    assert Masker().header("Authorization", "Bearer abc.def") == f"Bearer {MASK}"


def test_urls_and_body_fields() -> None:
    assert mask_url("https://h/x?api_key=1&page=2") == f"https://h/x?api_key={MASK}&page=2"
    assert secret_field("client_secret") and secret_field("clientSecret")
    assert not secret_field("key") and not secret_field("token_type")
    assert masking.MASK == "•••"


# -- mask_value and mask_url: what the app shows ------------------------------------------


def test_mask_value_keeps_what_is_not_secret() -> None:
    assert mask_value("Accept", "text/html") == "text/html"
    assert mask_value("Authorization", "") == ""
    assert mask_value("authorization", "BEARER abc") == f"BEARER {MASK}"
    assert mask_value("Authorization", "Bearer") == MASK  # a scheme alone is no scheme word
    assert mask_value("Authorization", "Custom abc") == MASK  # an unknown word is the secret


def test_mask_url_hides_only_secret_valued_parameters() -> None:
    assert mask_url("https://h/token") == "https://h/token"
    assert mask_url("https://h/?token=&page=1") == "https://h/?token=&page=1"
    assert mask_url("https://h/?api%5Fkey=v&q=1") == f"https://h/?api%5Fkey={MASK}&q=1"
    assert mask_url("https://h/?q=1&token=v#f") == f"https://h/?q=1&token={MASK}#f"


@pytest.mark.parametrize(
    "name",
    [
        "pass",
        "PASS",
        "pwd",
        "password",
        "Pass-Phrase",
        "passcode",
        "client_secret",
        "tokens",
        "access_token",
        "apiKey",
        "authorization",
        "Cookie",
        "credentials",
        "sessionId",
        "private_key",
    ],
)
def test_body_fields_that_hold_secrets(name: str) -> None:
    assert secret_field(name)


@pytest.mark.parametrize(
    "name", ["key", "token_type", "tokenizer", "session", "passenger", "authorizations", "id"]
)
def test_body_fields_that_do_not(name: str) -> None:
    assert not secret_field(name)


# -- Masker: what history and reports write -------------------------------------------------

ECHO = "application/json"


def test_a_body_field_named_pass_is_kept_secret() -> None:
    masker = Masker()
    body = masker.body(b'{"user": "ada", "pass": "hunter22"}', ECHO)
    assert body.decode() == f'{{"user": "ada", "pass": "{MASK}"}}'
    assert masker.text("echo hunter22") == f"echo {MASK}"  # learned, so its echo is masked


def test_the_password_of_a_url_is_masked_and_its_echo_too() -> None:
    masker = Masker()
    assert masker.url("https://bob:hunter22@h.example/x") == f"https://bob:{MASK}@h.example/x"
    assert masker.url("https://bob@h.example/x") == "https://bob@h.example/x"
    assert masker.url("https://bob:p%40ss99@h/") == f"https://bob:{MASK}@h/"
    assert masker.text("the password hunter22, p@ss99") == f"the password {MASK}, {MASK}"


def test_the_url_masks_secret_names_fields_and_known_secrets() -> None:
    masker = Masker(["s3cret-value"])
    url = "https://h/s3cret-value?password=p&page=2&q=s3cret-value"
    assert (
        masker.url(url)
        == f"https://h/{MASK}?password=%E2%80%A2%E2%80%A2%E2%80%A2&page=2&q=%E2%80%A2%E2%80%A2%E2%80%A2"
    )
    assert masker.url("https://h/x") == "https://h/x"


def test_a_secret_that_is_a_prefix_of_another_leaks_nothing() -> None:
    for extra in (0, 12):  # searched one by one, and through the index
        masker = Masker([f"filler-{i:04d}" for i in range(extra)])
        masker.learn("abcdef")
        masker.learn("abcdefghij")
        assert masker.text("<abcdefghij> <abcdef>") == f"<{MASK}> <{MASK}>", extra
        assert masker.body(b"x abcdefghij", "text/plain") == f"x {MASK}".encode()


def test_many_known_secrets_are_masked_adjacent_and_at_the_end() -> None:
    masker = Masker([f"secret-{i:03d}" for i in range(20)])
    assert len(masker.in_text) == 20
    masker.learn("abcd")
    assert masker.text("") == ""
    assert masker.text("nothing here") == "nothing here"
    assert masker.text("secret-001secret-002") == MASK + MASK
    assert masker.text("x secret-019") == f"x {MASK}"
    assert masker.text("ends abcd") == f"ends {MASK}"
    assert masker.text("abcd") == MASK
    assert masker.text("abc") == "abc"
    assert masker.text("secret-00") == "secret-00"


def test_a_few_known_secrets_are_masked_the_same_way() -> None:
    masker = Masker(["secret-001", "secret-002"])
    masker.learn("abcd")
    assert masker.text("secret-001secret-002 abcd") == f"{MASK}{MASK} {MASK}"
    assert masker.text("nothing here") == "nothing here"


def test_short_values_are_masked_only_whole() -> None:
    masker = Masker(["12345", "", "abcdef"])
    assert masker.exact == {"12345", "abcdef"}
    assert masker.in_text == ["abcdef"]
    assert masker.value("12345") == MASK
    assert masker.value("x12345") == "x12345"
    assert masker.value("xabcdef") == f"x{MASK}"
    masker.learn("  abc  ")
    masker.learn("abc")
    assert masker.text("abc") == "abc"  # under four characters: too common to look for
    masker.learn(" wxyz ")
    assert masker.text("wxyz") == MASK
    masker.learn("wxyz")
    assert masker.in_text == ["abcdef", "wxyz"]  # once each, longest first


def test_a_learned_token_echoed_under_a_harmless_json_field_is_masked() -> None:
    masker = Masker()
    assert masker.header("Authorization", "Bearer tok-123456") == f"Bearer {MASK}"
    body = b'{"headers": {"X-Seen": "tok-123456"}, "n": 1}'
    assert masker.body(body, ECHO) == f'{{"headers": {{"X-Seen": "{MASK}"}}, "n": 1}}'.encode()
    assert masker.body(b"seen tok-123456", "text/plain") == f"seen {MASK}".encode()


def test_cookie_values_echoed_in_a_body_are_masked() -> None:
    masker = Masker()
    assert masker.header("Cookie", "sid=abc123xyz; theme=solarized") == MASK
    body = b'{"seen": ["abc123xyz", "solarized"], "whole": "sid=abc123xyz; theme=solarized"}'
    out = masker.body(body, ECHO).decode()
    assert "abc123xyz" not in out and "solarized" not in out
    assert out.startswith(f'{{"seen": ["{MASK}", "{MASK}"]')
    assert masker.header("Set-Cookie", "") == ""


def test_headers_by_name_and_by_value() -> None:
    masker = Masker(["dotenv-secret"])
    assert masker.headers(
        [
            ("Authorization", "Bearer t0ken-a"),
            ("Proxy-Authorization", "t0ken-b"),
            ("X-Api-Key", "t0ken-c"),
            ("Accept", "dotenv-secret"),
            ("X-Trace", "id dotenv-secret"),
            ("Accept", "text/html"),
        ]
    ) == [
        ("Authorization", f"Bearer {MASK}"),
        ("Proxy-Authorization", MASK),
        ("X-Api-Key", MASK),
        ("Accept", MASK),
        ("X-Trace", f"id {MASK}"),
        ("Accept", "text/html"),
    ]
    assert masker.text("t0ken-a t0ken-b t0ken-c Bearer") == f"{MASK} {MASK} {MASK} Bearer"
    assert masker.header("Authorization", "  t0ken-d  ") == MASK
    assert masker.text("t0ken-d") == MASK


def test_pairs_mask_by_name_by_value_and_inside_values() -> None:
    masker = Masker(["known-secret"])
    text = "user=ada&password=p%40ss+word&k=known-secret&note=my+known-secret+here&flag&e=&pwd="
    assert masker.pairs(text) == (
        "user=ada&password=%E2%80%A2%E2%80%A2%E2%80%A2&k=%E2%80%A2%E2%80%A2%E2%80%A2"
        "&note=my+%E2%80%A2%E2%80%A2%E2%80%A2+here&flag&e=&pwd="
    )
    assert masker.text("p@ss word p%40ss+word") == f"{MASK} {MASK}"  # both spellings learned
    assert masker.pairs("token=abc", lambda name: False) == "token=abc"


def test_form_bodies_are_masked_by_field() -> None:
    masker = Masker()
    form = "application/x-www-form-urlencoded"
    assert masker.body(b"a=1&secret=xyzw", form) == b"a=1&secret=%E2%80%A2%E2%80%A2%E2%80%A2"
    assert masker.body(b"a=1&secret=xyzw", "") == b"a=1&secret=%E2%80%A2%E2%80%A2%E2%80%A2"
    assert masker.body(b"a=1 and secret=xyzw", "") == f"a=1 and secret={MASK}".encode()


MULTIPART = (
    b"--XyZ\r\n"
    b'Content-Disposition: form-data; name="user"\r\n\r\nada\r\n'
    b"--XyZ\r\n"
    b'Content-Disposition: form-data; name="password"\r\n\r\nhunter22\r\n'
    b"--XyZ\r\n"
    b'Content-Disposition: form-data; name="token"; filename="t.txt"\r\n\r\nfile-body\r\n'
    b"--XyZ\r\n"
    b'Content-Disposition: form-data; name="secret"\r\n\r\n\r\n'
    b"--XyZ\r\n"
    b'Content-Disposition: form-data; name="api_key"\r\n\r\nlast-part'
)


def test_multipart_text_fields_are_masked_by_name() -> None:
    masker = Masker()
    out = masker.body(MULTIPART + b"\r\n--XyZ--\r\n", 'multipart/form-data; boundary="XyZ"')
    assert out == (
        MULTIPART.replace(b"hunter22", MASK.encode()).replace(b"last-part", MASK.encode())
        + b"\r\n--XyZ--\r\n"
    )
    cut = masker.body(MULTIPART, "multipart/form-data; boundary=XyZ")  # cut short by a cap
    assert cut.endswith(b'name="api_key"\r\n\r\n' + MASK.encode())
    assert masker.text("hunter22 last-part") == f"{MASK} {MASK}"
    # No boundary, or a part without a head: only known secrets are masked.
    assert masker.body(MULTIPART, "multipart/form-data") == MULTIPART.replace(
        b"hunter22", MASK.encode()
    ).replace(b"last-part", MASK.encode())
    headless = b'--XyZ\r\nname="password" no blank line'
    assert masker.body(headless, "multipart/form-data; boundary=XyZ") == headless


def test_binary_and_text_bodies_mask_known_secrets() -> None:
    masker = Masker(["known-secret"])
    data = b"\xff\xfe known-secret \x00"
    assert masker.body(data, "application/octet-stream") == b"\xff\xfe " + MASK.encode() + b" \x00"
    assert masker.body(b"plain known-secret", "text/plain") == f"plain {MASK}".encode()
    assert masker.body(b"token: abc", "text/plain") == b"token: abc"  # no field in plain text


def test_json_without_a_secret_is_kept_byte_for_byte() -> None:
    masker = Masker(["known-secret"])
    data = b'{"a":  [1, 2.5e3, true, null],\n "b": "x"}'
    assert masker.body(data, ECHO) is data
    assert masker.body(b'[{"id": 1}]', "application/vnd.api+json") == b'[{"id": 1}]'
    assert masker.body(b' {"k": "known-secret"}', "text/plain") == f' {{"k": "{MASK}"}}'.encode()
    assert masker.body(b'{"k": 1}', "APPLICATION/JSON; charset=utf-8") == b'{"k": 1}'


def test_json_secret_fields_mask_every_value_inside_them() -> None:
    masker = Masker()
    text = (
        '{"password": 12345, "secret": {"a": "b", "n": [1, "c"]}, "token": "", '
        '"ok": {"id": 7, "note": "fine"}, "after": "d"}'
    )
    assert masker.json(text) == (
        f'{{"password": "{MASK}", "secret": {{"a": "{MASK}", "n": ["{MASK}", "{MASK}"]}}, '
        f'"token": "", "ok": {{"id": 7, "note": "fine"}}, "after": "d"}}'
    )
    assert masker.text("12345") == MASK  # a number in a secret field is learned as text
    assert masker.json("[1, 12345, 2345]") == f'[1, "{MASK}", 2345]'
    lines = '{"a": "x"}\n{"secret": "y"}\n'  # one document a line
    assert masker.json(lines) == f'{{"a": "x"}}\n{{"secret": "{MASK}"}}\n'


def test_json_keys_are_names_not_values() -> None:
    masker = Masker(["hidden-value"])
    assert masker.json('{"hidden-value": 1, "k": "hidden-value"}') == (
        f'{{"{MASK}": 1, "k": "{MASK}"}}'
    )
    # A secret field's own name is never masked, nor is a key after a secret value.
    assert masker.json('{"token": "t", "token2": "u", "id": "v"}') == (
        f'{{"token": "{MASK}", "token2": "u", "id": "v"}}'
    )
    assert (
        masker.json('{"a\\u0070iKey": "v", "k": "w"}') == f'{{"a\\u0070iKey": "{MASK}", "k": "w"}}'
    )


def test_json_cut_short_is_masked_as_far_as_it_goes() -> None:
    masker = Masker(["known-secret"])
    assert masker.json('{"token": "abcdefg') == f'{{"token": "{MASK}'
    assert masker.json('{"name": "abc') == '{"name": "abc'
    assert masker.json('{"token') == '{"token'
    assert masker.json('["token", "abc') == '["token", "abc'
    assert masker.json('{"a": known-secret') == f'{{"a": {MASK}'
    assert masker.json("]}{") == "]}{"


def test_json_strings_with_escapes_documents_and_forms_inside() -> None:
    masker = Masker(["known-secret"])
    assert masker.json('{"k": "bad \\q escape known-secret"}') == (
        f'{{"k": "bad \\q escape {MASK}"}}'
    )
    assert masker.json('{"token": "bad \\q"}') == f'{{"token": "{MASK}"}}'
    assert masker.json('{"k": "line\\nknown-secret"}') == f'{{"k": "line\\n{MASK}"}}'
    inner = json.dumps({"data": json.dumps({"password": "p4ss"}), "plain": "{not json"})
    assert masker.json(inner) == json.dumps(
        {"data": f'{{"password": "{MASK}"}}', "plain": "{not json"}, ensure_ascii=False
    )
    form = json.dumps({"body": "user=ada&password=p4ss", "eq": "a = b"})
    assert masker.json(form) == json.dumps(
        {"body": "user=ada&password=%E2%80%A2%E2%80%A2%E2%80%A2", "eq": "a = b"}
    )
    assert masker.json('{"k": "\\u00e9 known-secret"}') == f'{{"k": "é {MASK}"}}'


def test_dotenv_values_are_the_secrets_of_a_collection(tmp_path: Path) -> None:
    assert masking.dotenv_secrets(tmp_path) == []
    (tmp_path / ".env").write_text("A=one-secret\nB=\nnot a line\nC='two words'\n")
    assert masking.dotenv_secrets(tmp_path) == ["one-secret", "two words"]
    (tmp_path / ".env").write_bytes(b"A=\xff\n")
    assert masking.dotenv_secrets(tmp_path) == []


# -- the edges of each rule -----------------------------------------------------------------


def test_the_scheme_word_is_only_the_first_word() -> None:
    assert mask_value("Authorization", "Bearer abc def") == f"Bearer {MASK}"
    masker = Masker()
    assert masker.header("Authorization", "Bearer abcd efgh") == f"Bearer {MASK}"
    assert masker.text("abcd efgh") == MASK  # the whole credential, not its last word


def test_a_url_query_is_everything_after_the_first_question_mark() -> None:
    assert mask_url("https://h/?token=ab?cd") == f"https://h/?token={MASK}"
    masker = Masker()
    assert masker.url("https://h/?key=abcd&q=1") == "https://h/?key=%E2%80%A2%E2%80%A2%E2%80%A2&q=1"
    # The password runs from the first colon to the last @.
    assert masker.url("https://bob:pa:ss@word@h/") == f"https://bob:{MASK}@h/"
    assert masker.text("pa:ss@word") == MASK


def test_only_cookie_headers_are_split_into_values() -> None:
    masker = Masker()
    masker.header("X-Api-Key", "name=value1")
    assert masker.text("value1") == "value1"
    masker.header("Cookie", "sid=abcd=efgh")
    assert masker.text("x abcd=efgh y") == f"x {MASK} y"


def test_pairs_split_at_the_first_equals_and_keep_their_spelling() -> None:
    masker = Masker(["known-secret"])
    assert masker.pairs("password=ab=cd&q=a%20b&x=~&y=a+b") == (
        "password=%E2%80%A2%E2%80%A2%E2%80%A2&q=a%20b&x=~&y=a+b"
    )


def test_a_body_that_looks_like_json_is_masked_as_json_whatever_its_type() -> None:
    for body in (b'{"password": "abcd"}', b' \n[{"password": "abcd"}]'):
        out = Masker().body(body, "text/plain").decode()
        assert "abcd" not in out and f'"password": "{MASK}"' in out


def test_a_form_body_by_its_type_even_when_it_does_not_look_like_one() -> None:
    masker = Masker()
    for ctype in (
        "application/x-www-form-urlencoded",
        "Application/X-WWW-Form-Urlencoded; charset=utf-8; x=y",
    ):
        out = masker.body(b"a=1 2&secret=abcd", ctype)
        assert out == b"a=1 2&secret=%E2%80%A2%E2%80%A2%E2%80%A2", ctype


def test_json_strings_holding_documents_or_forms() -> None:
    masker = Masker(["known-secret"])
    assert masker.json('{"a": "  {\\"password\\": \\"x\\"}"}') == (
        f'{{"a": "  {{\\"password\\": \\"{MASK}\\"}}"}}'
    )
    assert masker.json('{"a": "[{\\"password\\": \\"x\\"}]"}') == (
        f'{{"a": "[{{\\"password\\": \\"{MASK}\\"}}]"}}'
    )
    # Text with an "=" that is no form is masked as text: its spelling is kept.
    assert masker.json('{"a": "k=1 known-secret"}') == f'{{"a": "k=1 {MASK}"}}'


def test_json_cut_inside_a_key_after_a_secret_value() -> None:
    masker = Masker()
    assert masker.json('{"token": "abcdef", "na') == f'{{"token": "{MASK}", "na'
    assert masker.json('{"a\\q": "uvwxyz"}') == '{"a\\q": "uvwxyz"}'  # a key with a bad escape


def test_multipart_parts_without_names_blank_lines_inside_and_odd_bytes() -> None:
    masker = Masker()
    data = (
        b"--b\r\nContent-Type: text/plain\r\n\r\nno name\r\n"
        b'--b\r\nContent-Disposition: form-data; name="password"\r\n\r\nfirst\r\n\r\nsecond\r\n'
        b'--b\r\nContent-Disposition: form-data; name="password\xff"\r\n\r\nthird-\xff\r\n'
        b"--b--\r\n"
    )
    out = masker.body(data, "multipart/form-data; boundary=b")
    assert out == (
        b"--b\r\nContent-Type: text/plain\r\n\r\nno name\r\n"
        b'--b\r\nContent-Disposition: form-data; name="password"\r\n\r\n\xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2\r\n'
        b'--b\r\nContent-Disposition: form-data; name="password\xff"\r\n\r\n\xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2\r\n'
        b"--b--\r\n"
    )
    assert masker.text("third-\ufffd") == MASK
    # A boundary outside Latin-1 cannot delimit anything: the body is left to known secrets.
    assert masker.body(b"--\xe2\x82\xac\r\n", "multipart/form-data; boundary=€") == (
        b"--\xe2\x82\xac\r\n"
    )


def test_secrets_that_overlap_in_a_text_are_masked_whole() -> None:
    for extra in (0, 12):  # searched one by one, and through the index
        masker = Masker([f"filler-{i:04d}" for i in range(extra)] + ["abcdef", "defghi"])
        assert masker.text("<abcdefghi>") == f"<{MASK}>", extra
        assert masker.text("abcdefghi abcdef") == f"{MASK} {MASK}", extra
        masker.learn("ghij")
        assert masker.text("abcdefghij!") == f"{MASK}!", extra
        masker.learn("cdefgh")
        assert masker.text("xbcdefghy") == f"xb{MASK}y", extra
        masker.learn("aaaa")
        assert masker.text("aaaaa") == MASK, extra
        assert masker.text("abcdef.abcdef.abcdef") == f"{MASK}.{MASK}.{MASK}", extra


def test_bytes_are_masked_whole_however_secrets_overlap() -> None:
    masker = Masker()
    masker.learn("abcdef")
    masker.learn("abcdefghij")  # learned after the shorter one it starts with
    masker.learn("hijklm")
    data = b"\xff abcdefghij | abcdef | abcdefghijklm | hijklm hijklm"
    assert masker.body(data, "application/octet-stream") == (
        b"\xff \xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2 | \xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2 | "
        b"\xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2 | \xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2 "
        b"\xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2"
    )
    assert masker.in_text == ["abcdefghij", "abcdef", "hijklm"]  # longest first
