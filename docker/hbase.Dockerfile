# Apache HBase 2.6 standalone with its Thrift1 server on 9090, from the same
# Maven project and launcher the test suite uses.
FROM maven:3.9-eclipse-temurin-17 AS jars
WORKDIR /src
COPY hbase hbase
RUN mvn -B -q -f hbase/pom.xml package

FROM python:3.11-slim-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jre-headless \
 && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir happybase==1.3.0 thriftpy2==0.7.1
WORKDIR /app
COPY hbase hbase
COPY --from=jars /src/hbase/target hbase/target
COPY storage/__init__.py devtools/realhbase.py storage/
EXPOSE 9090
VOLUME /data
CMD ["python", "-m", "devtools.realhbase", "run", "--workdir", "/data", "--host", "0.0.0.0", "--thrift-port", "9090"]
