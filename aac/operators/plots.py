"""Figures 2 and 3 as PNG files (matplotlib, Agg backend; imported only by `aac eval operators --plots`)."""

from __future__ import annotations

from pathlib import Path

STYLE = {"TypeCompact": dict(color="#c0392b", marker="o", linewidth=2.5),
         "truncation": dict(color="#7f8c8d", marker="s"), "temporal": dict(color="#2980b9", marker="^"),
         "pruning": dict(color="#8e44ad", marker="v"), "mars-fl": dict(color="#27ae60", marker="D")}


def draw(report: dict, out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    comp = report["compaction"]
    ratios = sorted((float(r) for r in comp), reverse=True)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for s in comp[str(ratios[0])]["strategies"]:
        ys = [comp[str(r)]["strategies"][s]["C"] for r in ratios]
        ax.plot([r * 100 for r in ratios], ys, label=s, **STYLE.get(s, {}))
    feas = [comp[str(r)]["feasible"] / max(1, comp[str(r)]["feasible"] + comp[str(r)]["unsafe"]) for r in ratios]
    ax.plot([r * 100 for r in ratios], feas, color="#c0392b", linestyle=":", label="TypeCompact feasible share")
    ax.set_xlabel("target budget (% of original tokens)")
    ax.set_ylabel("constraint key-token recall")
    ax.set_ylim(0, 1.05)
    ax.invert_xaxis()
    ax.grid(alpha=0.3)
    ax.set_title(f"Figure 2. Constraint preservation vs. compression ({report['n_configs']} real configs)")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    p = out_dir / "figure2_constraint_preservation.png"
    fig.savefig(p)
    plt.close(fig)
    paths.append(p)

    rd = report["rounds"]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    xs = list(range(1, len(rd["escalated"]) + 1))
    for s, ys in rd["strategies"].items():
        ax.plot(xs, ys, label=s, **STYLE.get(s, {}))
    ax.set_xticks(xs)
    ax.set_xlabel(f"compaction round (each at {int(rd['ratio'] * 100)}% of the previous size)")
    ax.set_ylabel("constraint key-token recall")
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3)
    ax.set_title("Figure 3. Constraint recall over repeated compaction")
    n = report["n_configs"]
    ax.text(0.99, 0.02, "TypeCompact Unsafe (escalated, last safe state kept): "
            + ", ".join(f"r{i}: {e}/{n}" for i, e in zip(xs, rd["escalated"])),
            transform=ax.transAxes, ha="right", va="bottom", fontsize=7, color="#c0392b")
    ax.legend(loc="center left", fontsize=8)
    fig.tight_layout()
    p = out_dir / "figure3_rounds.png"
    fig.savefig(p)
    plt.close(fig)
    paths.append(p)
    return paths
