"""Which of a paper's links lead to its code, and which only to the paper itself.

A paper's `urls` mix both: a JSONL list gives the paper's page (an OpenReview forum, an arXiv
abstract), and the abstract may name a repository or a project page. "Does it have code?" must
answer with the second kind only. Paper pages (OpenReview, arXiv, DOI, publishers' proceedings,
any PDF) are never code; code hosts (GitHub, GitLab, Bitbucket, Hugging Face, ...) always are;
any other page counts only when the abstract itself writes it, as authors write their project
page ("Project page: https://x.github.io/y").
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from retrieval.labels.urls import extract_urls

# Where a paper is published or archived: its page there is the paper, never its code.
_PAPER_HOSTS = frozenset(
    {
        "openreview.net",
        "arxiv.org",
        "doi.org",
        "dx.doi.org",
        "proceedings.mlr.press",
        "proceedings.neurips.cc",
        "papers.nips.cc",
        "papers.neurips.cc",
        "neurips.cc",
        "icml.cc",
        "iclr.cc",
        "aclanthology.org",
        "openaccess.thecvf.com",
        "dl.acm.org",
        "ieeexplore.ieee.org",
        "link.springer.com",
        "semanticscholar.org",
        "ojs.aaai.org",
        "jmlr.org",
        "researchgate.net",
        "paperswithcode.com",
    }
)
# Where code, models and demos live.
_CODE_HOSTS = frozenset(
    {
        "github.com",
        "gitlab.com",
        "bitbucket.org",
        "huggingface.co",
        "codeberg.org",
        "sourceforge.net",
        "colab.research.google.com",
    }
)


def _host_and_path(url: str) -> tuple[str, str]:
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
    except ValueError:  # a malformed port or bracket
        return "", ""
    return host.lower().removeprefix("www."), parts.path.lower()


def _on(host: str, hosts: frozenset[str]) -> bool:
    """`host` is one of `hosts` or a subdomain of one (export.arxiv.org, gist.github.com)."""
    return host in hosts or any(host.endswith("." + known) for known in hosts)


def _key(url: str) -> str:
    return url.strip().rstrip("/").lower()


def is_code_link(url: str, abstract: str = "") -> bool:
    """True if `url` leads to code or a project page rather than to the paper itself.

    A paper page (OpenReview forum or PDF, arXiv abs or PDF, doi.org, proceedings, any .pdf)
    is not code; GitHub, GitLab, Bitbucket, Hugging Face and the like are; any other page is a
    project page only if `abstract` writes it.
    """
    host, path = _host_and_path(url)
    if not host or _on(host, _PAPER_HOSTS) or path.endswith(".pdf"):
        return False
    if _on(host, _CODE_HOSTS):
        return True
    return _key(url) in {_key(written) for written in extract_urls(abstract)}


def code_links(urls: Sequence[str], abstract: str = "") -> tuple[str, ...]:
    """The code and project links among a paper's `urls`, in order (see `is_code_link`)."""
    return tuple(url for url in urls if is_code_link(url, abstract))


def is_repository(url: str) -> bool:
    """True if `url` is on a code host (GitHub, Hugging Face ...), not a project page."""
    host, _ = _host_and_path(url)
    return bool(host) and _on(host, _CODE_HOSTS)


def link_lines(urls: Sequence[str]) -> tuple[str, ...]:
    """Code links named for what they are: "Code: <repositories>" and "Project page: <the
    others>" (a project page is not code; a newcomer took one for a repository)."""
    repositories = [url for url in urls if is_repository(url)]
    pages = [url for url in urls if not is_repository(url)]
    lines = []
    if repositories:
        lines.append("Code: " + "  ".join(repositories))
    if pages:
        lines.append(
            ("Project page: " if len(pages) == 1 else "Project pages: ") + "  ".join(pages)
        )
    return tuple(lines)
