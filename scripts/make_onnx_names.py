#!/usr/bin/python3
"""make_onnx_names.py - remake the small ONNX models whose names test how
stagecut takes names it cannot write, or must escape.

Run by hand from the top of the tree, NOT by `make test`: it needs Debian's
python3-onnx, which neither the build nor the tests may use.

    /usr/bin/python3 scripts/make_onnx_names.py

It writes
  tests/bad/onnx_name_not_utf8.onnx   a node named b"caf\\xe9" (Latin-1 e acute)
  tests/bad/onnx_type_not_utf8.onnx   a node whose op type is b"Op\\xff"
  tests/bad/onnx_dim_not_utf8.onnx    an input whose symbolic dim is b"N\\xc3("
  tests/data/onnx_odd_names.onnx      a valid model whose node names hold a
                                      quote, a backslash, a newline, a tab,
                                      ESC, a C1 control (U+009B), U+00E9, two
                                      backslashes before a quote (all of which
                                      DOT holds), and one of 1000 bytes on an
                                      op of unknown type (for the warning that
                                      lists them)

protobuf's Python strings must be valid UTF-8, so a bad name is written as a
placeholder of the same length and its bytes are replaced in the serialised
model.
"""

import os
import sys

from onnx import TensorProto, helper


def model(nodes, inputs, outputs, value_info=()):
    g = helper.make_graph(nodes, "names", inputs, outputs, value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def vec(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def save(m, path, patches=()):
    data = m.SerializeToString()
    for old, new in patches:
        assert len(old) == len(new) and data.count(old) == 1, (path, old)
        data = data.replace(old, new)
    with open(path, "wb") as f:
        f.write(data)
    print(path, len(data), "bytes")


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bad = os.path.join(top, "tests", "bad")
    data = os.path.join(top, "tests", "data")

    relu = lambda name, i, o: helper.make_node("Relu", [i], [o], name=name)

    # node 1 is named caf\xe9
    m = model([relu("ok", "x", "y"), relu("caf@", "y", "z")], [vec("x", [4])], [vec("z", [4])])
    save(m, os.path.join(bad, "onnx_name_not_utf8.onnx"), [(b"caf@", b"caf\xe9")])

    # node 0's op type is Op\xff (a custom op's)
    m = model([helper.make_node("Op@", ["x"], ["y"], name="custom")], [vec("x", [4])],
              [vec("y", [4])])
    save(m, os.path.join(bad, "onnx_type_not_utf8.onnx"), [(b"Op@", b"Op\xff")])

    # the input's dims are [N\xc3(, 4]: a truncated two-byte sequence
    m = model([relu("r", "x", "y")], [vec("x", ["N@@", 4])], [vec("y", [4, 4])])
    save(m, os.path.join(bad, "onnx_dim_not_utf8.onnx"), [(b"N@@", b"N\xc3(")])

    # valid names stagecut must escape in messages and keep in DOT
    odd = ['quote"d', "back\\slash", "new\nline", "tab\tbed", "esc\x1b[31m", "csi\x9b31m",
           "caf\u00e9", 'two\\\\"quoted']
    nodes, prev = [], "x"
    for i, name in enumerate(odd):
        nodes.append(relu(name, prev, "t%d" % i))
        prev = "t%d" % i
    long_name = "L" * 1000
    nodes.append(helper.make_node("Mystery", [prev], ["out"], name=long_name, domain="x.y"))
    m = model(nodes, [vec("x", [4])], [vec("out", [4])])
    m.opset_import.append(helper.make_opsetid("x.y", 1))
    save(m, os.path.join(data, "onnx_odd_names.onnx"))


if __name__ == "__main__":
    sys.exit(main())
