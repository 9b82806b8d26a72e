# Apache HBase 2.6 standalone with its Thrift1 server on 9090 and its Thrift2
# server on 9091, from the same Maven project (hbase/pom.xml) and launcher
# (devtools/realhbase.py) the test suite uses. For one machine; a real
# cluster is docs/scaling.md's subject.
#
# Both bases are build arguments, as in the app's Dockerfile.
ARG MAVEN_IMAGE=maven:3.9-eclipse-temurin-17
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${MAVEN_IMAGE} AS jars
WORKDIR /src
COPY hbase/pom.xml hbase/pom.xml
# The stamp is what `realhbase fetch` writes after the same command: the
# launcher then knows the jars are complete and does not fetch again.
RUN mvn -B -q -f hbase/pom.xml package && touch hbase/target/fetched.stamp

FROM ${PYTHON_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      openjdk-17-jre-headless \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv \
 && /opt/venv/bin/pip install --no-cache-dir happybase==1.3.0 thriftpy2==0.7.1
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1
WORKDIR /app
COPY hbase/pom.xml hbase/pom.xml
COPY hbase/conf hbase/conf
COPY --from=jars /src/hbase/target hbase/target
COPY hbasethrift hbasethrift
COPY devtools/__init__.py devtools/realhbase.py devtools/
EXPOSE 9090 9091
VOLUME /data
CMD ["python", "-m", "devtools.realhbase", "run", "--workdir", "/data", "--host", "0.0.0.0", \
     "--thrift-port", "9090", "--thrift2-port", "9091", "--region-servers", "1"]
