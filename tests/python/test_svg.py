"""olla optimize --svg writes a standalone SVG that an XML parser reads, with one
tooltip per drawn buffer, both panels, the legend, and escaped names."""

import os
import pathlib
import subprocess
import xml.etree.ElementTree as ElementTree

ROOT = pathlib.Path(__file__).resolve().parents[1].parent
OLLA = os.environ.get("OLLA_BINARY", str(ROOT / "build" / "bin" / "olla"))
SVG = "{http://www.w3.org/2000/svg}"


def picture(tmp_path, graph):
    out = tmp_path / "plan.svg"
    subprocess.run([OLLA, "optimize", str(graph), "--work-limit", "100000", "--svg",
                    str(out)], check=True, capture_output=True)
    return ElementTree.parse(out).getroot(), out.read_text()


def test_resnet18_picture_is_valid_svg_with_tooltips(tmp_path):
    root, text = picture(tmp_path, ROOT / "models" / "resnet18.train.b32.json.gz")
    assert root.tag == SVG + "svg"
    texts = [t.text for t in root.iter(SVG + "text")]
    assert "eager PyTorch (caching allocator model)" in texts
    assert "olla's plan (order and offsets)" in texts
    for label in ("forward", "backward", "optimizer", "persistent", "workspace"):
        assert label in texts
    tooltips = [t.text for t in root.iter(SVG + "title")]
    # Buffers of both sides carry their names, sizes and lifetimes.
    assert sum("layer4.1.conv2.weight (parameter" in t for t in tooltips) == 2
    assert any(t.startswith("peak ") for t in tooltips)
    assert len(list(root.iter(SVG + "polyline"))) == 2
    assert "32.6% of eager reserved" in text


def test_names_are_escaped(tmp_path):
    graph = tmp_path / "graph.json"
    graph.write_text(
        '{"format": "olla.graph", "version": 1, "name": "a<b>&\\"c\\"",'
        ' "buffers": [{"id": 0, "name": "x<&>y", "size": 4096, "output": true}],'
        ' "ops": [{"id": 0, "name": "op<1>", "allocates": [0]}]}')
    root, _ = picture(tmp_path, graph)
    tooltips = [t.text for t in root.iter(SVG + "title")]
    assert "olla plan for a<b>&\"c\"" in tooltips
    assert any(t.startswith("x<&>y (activation") for t in tooltips)
