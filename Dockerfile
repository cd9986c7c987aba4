# taintlint in a container image. The taintlint-docker pre-commit hook builds
# it from this repository; by hand:
#   docker build -t taintlint .
#   docker run --rm -v "$PWD:/src" taintlint check .
# The Go version follows go.mod (a test checks); the binary is static, so the
# final image is distroless with nothing but taintlint in it.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/taintlint ./cmd/taintlint

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/taintlint /usr/local/bin/taintlint
WORKDIR /src
ENTRYPOINT ["/usr/local/bin/taintlint"]
CMD ["check", "."]
