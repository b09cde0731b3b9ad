"""The local table's port: taken again at once after a restart, never shared with a running table."""

from __future__ import annotations

import socket

import pytest

from bot.local.web import listen


def test_a_port_left_in_time_wait_is_taken_again_but_a_listening_one_is_not() -> None:
    first = listen(0)
    port = first.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    served, _ = first.accept()
    served.close()  # the table's side closes first: its end of the connection waits in TIME_WAIT
    client.close()
    with pytest.raises(OSError):
        listen(port)  # a second table while the first still listens: refused
    first.close()
    again = listen(port)  # restarted at once (without SO_REUSEADDR: "Address already in use")
    again.close()
