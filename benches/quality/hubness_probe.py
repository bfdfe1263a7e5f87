"""Probe (#28): hubness corrections for the fast model's static vectors on CoSQA dev: centring
the chunk vectors (and the queries), and removing the top principal components ("all but the
top"). Exact cosine over the fast vectors of the CoSQA index that `benches.quality.run
--index-cache benches/work/indexes` built; MRR@10 of the semantic arm alone.

    python benches/quality/hubness_probe.py
"""
import json, sqlite3, sys
import numpy as np
from sharc.vectors import VectorStore
from sharc.static_embedding import load_static_embedder
d = json.load(open('benches/data/cosqa/dataset.json'))
ix = 'benches/work/indexes/cosqa-dev/independent'
rows = sqlite3.connect(ix + '/manifest.sqlite').execute('select key, path, start_line, end_line from chunks').fetchall()
store = VectorStore.load(ix + '/vectors-fast.usearch')
keys, V = store.vectors(np.array([r[0] for r in rows], dtype=np.uint64))
meta = {r[0]: r[1:] for r in rows}
info = [meta[int(k)] for k in keys]
emb = load_static_embedder()
Q = np.asarray(emb.embed_queries([q['text'] for q in d['queries']]), dtype=np.float32)
Q /= np.linalg.norm(Q, axis=1, keepdims=True)
def mrr(V, Q):
    S = Q @ V.T
    total = 0
    for i, q in enumerate(d['queries']):
        t = q['targets'][0]
        order = np.argsort(-S[i])[:10]
        for r, j in enumerate(order):
            p, s, e = info[j]
            if p.endswith(t['path'].split('/')[-1]) and s <= t['end_line'] and e >= t['start_line']:
                total += 1 / (r + 1); break
    return 100 * total / len(d['queries'])
print('chunks', len(V), 'raw', round(mrr(V, Q), 1))
mu = V.mean(axis=0)
for a in (0.5, 1.0):
    C = V - a * mu; C /= np.linalg.norm(C, axis=1, keepdims=True)
    print('centered', a, round(mrr(C, Q), 1))
    Qc = Q - a * Q.mean(axis=0); Qc /= np.linalg.norm(Qc, axis=1, keepdims=True)
    print('both centered', a, round(mrr(C, Qc), 1))
# all-but-the-top: remove top-D principal components
Cm = V - mu
U, Sv, Vt = np.linalg.svd(Cm, full_matrices=False)
for D in (1, 2, 4, 8):
    P = Vt[:D]
    C = Cm - (Cm @ P.T) @ P; C /= np.linalg.norm(C, axis=1, keepdims=True)
    Qc = Q - (Q @ P.T) @ P; Qc /= np.linalg.norm(Qc, axis=1, keepdims=True)
    print('abtt', D, round(mrr(C, Qc), 1), 'docs only', round(mrr(C, Q), 1))
import glob
texts = []
split = json.load(open('benches/queries/repos/SPLIT.json'))['repos']
for f in glob.glob('benches/queries/repos/*.json'):
    name = f.split('/')[-1][:-5]
    if name in split and split[name]['split'] == 'dev':
        texts += [q['text'] for q in json.load(open(f))['queries']]
QR = np.asarray(emb.embed_queries(texts), dtype=np.float32); QR /= np.linalg.norm(QR, axis=1, keepdims=True)
qmu = QR.mean(axis=0)
# doc mean from dev repos' fast vectors
R = []
for name in ['attrs', 'automapper', 'cjson', 'fastify', 'junit4', 'koa', 'moshi']:
    p = f'benches/data/index-cache/repos/{name}'
    try:
        rs = sqlite3.connect(p + '/manifest.sqlite').execute('select key from chunks').fetchall()
        _, W = VectorStore.load(p + '/vectors-fast.usearch').vectors(np.array([r[0] for r in rs], dtype=np.uint64))
        R.append(W)
    except Exception as e:
        print(name, e)
dmu_repo = np.concatenate(R).mean(axis=0)
print('queries', len(texts), 'repo chunks', sum(len(r) for r in R))
for label, dmu in (('cosqa corpus mean', mu), ('repo corpus mean', dmu_repo)):
    for a in (0.5, 1.0):
        C = V - a * dmu; C /= np.linalg.norm(C, axis=1, keepdims=True)
        Qc = Q - a * qmu; Qc /= np.linalg.norm(Qc, axis=1, keepdims=True)
        print(label, a, 'q from repo questions', round(mrr(C, Qc), 1))
