"""Which parts of a request made from a history entry still carry the history's mask: such an
entry is opened, never re-sent (the mask would go out in place of the secret)."""

from __future__ import annotations

from pigeon.masking import MASK
from pigeon.model import Body, QueryParam, Request
from pigeon.tui.widgets.collection.history_pane import masked_parts


def test_a_request_without_the_mask_can_be_resent() -> None:
    request = Request(name="r", url="http://127.0.0.1:1/users?page=2", body=Body(content="{}"))
    assert masked_parts(request) == []


def test_the_mask_in_the_url_or_an_enabled_query_value_names_the_url() -> None:
    assert masked_parts(Request(name="r", url=f"http://127.0.0.1:1/?key={MASK}")) == ["URL"]
    query = [QueryParam("key", MASK)]
    assert masked_parts(Request(name="r", url="http://127.0.0.1:1/", query=query)) == ["URL"]


def test_a_switched_off_query_value_is_not_sent_so_its_mask_does_not_count() -> None:
    query = [QueryParam("key", MASK, enabled=False)]
    assert masked_parts(Request(name="r", url="http://127.0.0.1:1/", query=query)) == []


def test_the_mask_in_the_body_names_the_body_after_the_url() -> None:
    body = Body(content=f'{{"password": "{MASK}"}}')
    request = Request(name="r", url=f"http://127.0.0.1:1/?key={MASK}", body=body)
    assert masked_parts(request) == ["URL", "body"]
