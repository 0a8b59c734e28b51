# progmux's Homebrew formula, in a tap's layout (packaging/homebrew-progmux
# is the tap's repository: brew tap progmux/progmux, then brew install
# progmux). It builds the release tarball (make dist) with Homebrew's
# tmux, PCRE2 and msgpack-c, jsmn's one header pinned by
# its sha256, and its test pipes initialize and tools/call run_program
# into progmux and checks the reply. make brew-test runs its install and
# test blocks against the tarball of this tree.
class Progmux < Formula
  desc "MCP server that runs an agent's programs in tmux panes"
  homepage "https://github.com/progmux/progmux"
  url "https://github.com/progmux/progmux/releases/download/v0.1.0/progmux-0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"

  depends_on "pkgconf" => :build
  depends_on "msgpack"
  depends_on "pcre2"
  depends_on "tmux"

  resource "jsmn.h" do
    url "https://raw.githubusercontent.com/zserge/jsmn/v1.1.0/jsmn.h"
    sha256 "1ed6154dedf009212a08a397e9c4ed50a0ce31d5a8301bb294e137ae3188c13b"
  end

  def install
    (buildpath/"jsmn").install resource("jsmn.h")
    ENV.append_to_cflags "-I#{buildpath}/jsmn"
    system "make", "all"
    system "make", "install", "PREFIX=#{prefix}"
  end

  test do
    input = <<~EOS
      {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"brew","version":"1"}}}
      {"jsonrpc":"2.0","method":"notifications/initialized"}
      {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_program","arguments":{"argv":["echo","hello from brew"]}}}
    EOS
    output = pipe_output("#{bin}/progmux --robust", input, 0)
    assert_match "\"serverInfo\":{\"name\":\"progmux\"", output
    assert_match "hello from brew", output
    assert_match "\"outcome\":\"completed\"", output
    assert_match "\"exitStatus\":0", output
  end
end
