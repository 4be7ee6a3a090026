from posting import Posting

def on_response(response, posting: Posting) -> None:
    posting.set_variable("id", response.json()["id"])
