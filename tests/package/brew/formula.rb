# formula.rb FORMULA TARBALL WORKDIR — a Homebrew formula's install and
# test blocks run as Homebrew runs them, without Homebrew (make brew-test).
#
# The formula is loaded with the part of Homebrew's formula language it
# uses (desc, homepage, url, sha256, depends_on, resource, install, test;
# buildpath, prefix, bin, Pathname#install, ENV.append_to_cflags, system,
# pipe_output, assert_match). Checked first: the formula depends on tmux
# and pcre2, its url names the tarball given, whose sha256 it has. Then,
# as brew install does: the tarball unpacked into WORKDIR/build (its one
# top directory), each resource staged from a local copy only if that
# copy has the formula's sha256 (jsmn.h: $JSMN_H, or the system's
# /usr/include/jsmn.h; nothing is downloaded), install run there with
# prefix WORKDIR/prefix; then the test block in WORKDIR/test with HOME
# and TMPDIR there. Prints TAP lines; exits non-zero on any failure.
require "digest"
require "fileutils"
require "open3"
require "pathname"

formula_path, tarball, work = ARGV
abort "usage: formula.rb FORMULA TARBALL WORKDIR" unless work
$failed = 0

def ok(name, good, why = nil)
  puts "#{good ? "ok" : "not ok"} - #{name}#{good || why.nil? ? "" : " # #{why}"}"
  $failed += 1 unless good
  good
end

class AssertionFailed < StandardError; end

# A resource: its url and sha256, staged from a local copy.
class Resource
  attr_reader :name

  def initialize(name) = @name = name
  def url(u = nil, **) = (u ? @url = u : @url)
  def sha256(s = nil) = (s ? @sha256 = s : @sha256)

  def stage(dir)
    local = { "jsmn.h" => ENV.fetch("JSMN_H", "/usr/include/jsmn.h") }[File.basename(@url)]
    raise "#{@name}: no local copy of #{@url}" unless local && File.file?(local)
    got = Digest::SHA256.file(local).hexdigest
    raise "#{@name}: #{local} has sha256 #{got}, the formula pins #{@sha256}" unless got == @sha256

    FileUtils.mkdir_p(dir)
    FileUtils.cp(local, File.join(dir, File.basename(@url)))
  end
end

class Pathname
  def install(*sources)
    FileUtils.mkdir_p(self)
    sources.flatten.each do |s|
      s.is_a?(Resource) ? s.stage(self) : FileUtils.cp_r(s.to_s, self)
    end
  end
end

def ENV.append_to_cflags(flags)
  self["CFLAGS"] = [self["CFLAGS"], flags].compact.reject(&:empty?).join(" ")
end

# What of Formula the formula uses.
class Formula
  class << self
    attr_reader :deps, :resources, :test_block

    def inherited(k)
      super
      $formula_class = k
    end

    def desc(s = nil) = (s ? @desc = s : @desc)
    def homepage(s = nil) = (s ? @homepage = s : @homepage)
    def url(s = nil, **) = (s ? @url = s : @url)
    def sha256(s = nil) = (s ? @sha256 = s : @sha256)
    def license(s = nil) = (s ? @license = s : @license)

    def depends_on(spec)
      (@deps ||= []) << (spec.is_a?(Hash) ? spec.keys.first : spec)
    end

    def resource(name, &block)
      r = Resource.new(name)
      r.instance_eval(&block)
      (@resources ||= {})[name] = r
    end

    def test(&block) = @test_block = block
  end

  attr_reader :buildpath, :prefix, :testpath

  def initialize(buildpath, prefix, testpath)
    @buildpath = Pathname(buildpath)
    @prefix = Pathname(prefix)
    @testpath = Pathname(testpath)
  end

  def bin = prefix/"bin"
  def man1 = prefix/"share/man/man1"
  def resource(name) = self.class.resources.fetch(name)

  def system(*args)
    out, status = Open3.capture2e(*args)
    File.write(File.join(buildpath.dirname, "install.log"), out, mode: "a")
    raise "#{args.join(" ")} failed (#{status.exitstatus}): #{out.lines.last(20).join}" unless status.success?
  end

  def pipe_output(cmd, input, want = nil)
    out = IO.popen(cmd, "r+") do |p|
      p.write(input)
      p.close_write
      p.read
    end
    raise AssertionFailed, "#{cmd} exited #{$?.exitstatus}, not #{want}" if want && $?.exitstatus != want

    out
  end

  def assert_match(want, got)
    good = want.is_a?(Regexp) ? want.match?(got) : got.include?(want)
    raise AssertionFailed, "#{want.inspect} not in #{got[0, 2000]}" unless good
  end
end

load formula_path
k = $formula_class
exit 1 unless ok("#{formula_path} defines a formula", !k.nil?)
ok("#{k.name}: depends on tmux and pcre2", (%w[tmux pcre2] - k.deps).empty?, k.deps.inspect)
ok("#{k.name}: its url names #{File.basename(tarball)}", File.basename(k.url) == File.basename(tarball), k.url)
sum = Digest::SHA256.file(tarball).hexdigest
ok("#{k.name}: its sha256 is the tarball's", k.sha256 == sum, "#{k.sha256} vs #{sum}")

build = File.join(work, "build")
FileUtils.mkdir_p(build)
system("tar", "-xzf", tarball, "-C", build, exception: true)
tops = Dir.children(build)
exit 1 unless ok("the tarball has one top directory", tops.length == 1, tops.inspect)
f = k.new(File.join(build, tops[0]), File.join(work, "prefix"), File.join(work, "test"))
begin
  Dir.chdir(f.buildpath) { f.install }
  ok("install: built from the tarball and installed into its prefix",
     File.executable?(f.bin/"progmux") && File.executable?(f.bin/"progmux-reaper"))
rescue StandardError => e
  ok("install: built from the tarball and installed into its prefix", false, e.message)
  exit 1
end
FileUtils.mkdir_p(f.testpath)
ENV["HOME"] = ENV["TMPDIR"] = f.testpath.to_s
begin
  Dir.chdir(f.testpath) { f.instance_exec(&k.test_block) }
  ok("test: its assertions hold", true)
rescue AssertionFailed, StandardError => e
  ok("test: its assertions hold", false, e.message)
end
left, = Open3.capture2("pgrep", "-f", f.prefix.to_s)
ok("test: nothing it started is left", left.strip.empty?, left)
puts "formula: #{$failed} failed"
exit($failed.zero? ? 0 : 1)
