"""One mutation of a real capture for the grammars' fuzz tests: a few bytes flipped, cut, inserted or truncated."""

from hypothesis import strategies as st


def mutated(draw, original: bytes) -> bytes:
    """`original` after up to six random edits, drawn with the strategy's `draw`."""
    data = bytearray(original)
    for _ in range(draw(st.integers(0, 6))):
        position = draw(st.integers(0, max(len(data) - 1, 0)))
        action = draw(st.sampled_from(["flip", "delete", "insert", "truncate"]))
        if action == "flip" and data:
            data[position] = draw(st.integers(0, 255))
        elif action == "delete":
            del data[position : position + draw(st.integers(1, 40))]
        elif action == "insert":
            data[position:position] = draw(st.binary(max_size=40))
        else:
            del data[position:]
    return bytes(data)
