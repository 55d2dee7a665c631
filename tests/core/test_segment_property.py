"""Property tests: segmentation never crashes, and plain prose is never lost."""

from hypothesis import given, settings
from hypothesis import strategies as st

from aac.core.segment import KINDS, segment

PATHS = ["CLAUDE.md", ".cursorrules", ".cursor/rules/x.mdc", ".aider.conf.yml", "notes.txt"]

word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzÄéßжあ漢", min_size=1, max_size=12)
punct = st.sampled_from(["", "", "", ",", ".", "!", "?", ";"])
prose_line = st.builds(
    lambda indent, words, marks: " " * indent + " ".join(w + m for w, m in zip(words, marks)),
    st.integers(0, 6),
    st.lists(word, min_size=1, max_size=14),
    st.lists(punct, min_size=14, max_size=14),
)
prose = st.lists(st.one_of(prose_line, st.just(""), st.just("   ")), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=600), path=st.sampled_from(PATHS))
def test_arbitrary_text_segments_into_wellformed_items(text, path):
    segs = segment(text, path)
    n_lines = text.count("\n") + text.count("\r") + 1
    assert [s.ordinal for s in segs] == list(range(len(segs)))
    for s in segs:
        assert s.kind in KINDS and s.text.strip() == s.text and s.text
        assert s.line is None or 1 <= s.line <= n_lines


@settings(max_examples=150, deadline=None)
@given(lines=prose, path=st.sampled_from(["CLAUDE.md", ".cursorrules", ".windsurfrules", "x.mdc"]),
       newline=st.sampled_from(["\n", "\r\n"]))
def test_every_nonblank_prose_line_ends_up_inside_an_item(lines, path, newline):
    segs = segment(newline.join(lines), path)
    for line in lines:
        if line.strip():
            assert any(line.strip() in s.text for s in segs), line
