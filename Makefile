# The commands a newcomer needs; each is a script in scripts/ so CI runs exactly the same thing.
.PHONY: test build release demo test-browser deb
test:
	scripts/test.sh
build:
	scripts/install-deps.sh && . scripts/swift-env.sh && swift build
release:
	scripts/check-release.sh
demo:
	scripts/demo.sh
test-browser:
	scripts/test-browser.sh
deb:
	packaging/build-deb.sh
